#!/usr/bin/env python3
"""
usage: qemu-monitor.py SOCKET COMMAND...

Send one command to the QEMU human monitor listening on the Unix socket
SOCKET (run-vm.sh's MONITOR) and print its answer, without the prompt
and the terminal's escape sequences that the monitor echoes.
"""
import re
import signal
import socket
import sys
import time


def read_until_prompt(sock, deadline):
    out = b""
    while time.monotonic() < deadline and not out.rstrip().endswith(b"(qemu)"):
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if not data:
            break
        out += data
    return out.decode(errors="replace")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip())
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.connect(sys.argv[1])
    except OSError as err:
        sys.exit(f"qemu-monitor: {sys.argv[1]}: {err.strerror}")
    sock.settimeout(0.2)
    read_until_prompt(sock, time.monotonic() + 10)
    command = " ".join(sys.argv[2:])
    sock.sendall(command.encode() + b"\n")
    answer = read_until_prompt(sock, time.monotonic() + 10)
    answer = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", answer)
    lines = answer.replace("\r", "").split("\n")
    # The first line is the echoed command, the last the next prompt.
    print("\n".join(line for line in lines[1:] if not line.startswith("(qemu)")).strip())


if __name__ == "__main__":
    main()
