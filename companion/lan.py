"""Print the addresses the phones at the table should open: ``python -m companion.lan 5000``."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import subprocess
import sys


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, as the local network sees them."""
    found: list[str] = []
    try:  # Linux lists every interface's address here
        output = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=2).stdout
        found += output.split()
    except (OSError, subprocess.SubprocessError):
        pass
    with contextlib.suppress(OSError):
        found += socket.gethostbyname_ex(socket.gethostname())[2]
    addresses = []
    for text in found:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            continue
        if address.version == 4 and not address.is_loopback and text not in addresses:
            addresses.append(text)
    return addresses


def main(port: str) -> None:
    addresses = lan_addresses()
    print("\nGame-Night Companion")
    if addresses:
        print("Open this on the phones at the table (same Wi-Fi):")
        for address in addresses:
            print(f"    http://{address}:{port}/")
    else:
        print("No network address found: connect this computer to the Wi-Fi the phones use.")
    print(f"On this computer: http://localhost:{port}/\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "5000")
