"""Print the addresses the phones at the table should open: ``python -m companion.web.lan 5000``. They come
from the routing table, as the system would pick them: the same on Linux and macOS, not a Docker bridge's."""

import contextlib
import ipaddress
import socket
import sys
from collections.abc import Callable, Iterable

# Where the routes are asked about: 192.0.2.1 (TEST-NET-1, never routed) finds the default route, the private
# ranges a LAN when a VPN took the default route over. UDP port 9 (discard): nothing is sent.
ROUTE_PROBES = ("192.0.2.1", "192.168.0.1", "10.0.0.1", "172.16.0.1")
PROBE_PORT = 9

# Addresses phones on the Wi-Fi cannot reach even though a route uses them.
SKIPPED_NETWORKS = tuple(ipaddress.ip_network(net) for net in (
    "100.64.0.0/10",  # carrier-grade NAT range: Tailscale and other VPNs
    "172.17.0.0/16",  # Docker's default bridge
    "198.18.0.0/15",  # benchmarking range: the "fake IP" tunnels of VPN and proxy apps on macOS
))


def route_address(destination: str) -> str | None:
    """The local IPv4 address the system would send from to reach ``destination``; None without a route."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((destination, PROBE_PORT))  # UDP: picks the route, sends no packet
        return probe.getsockname()[0]
    return None


def hostname_addresses() -> list[str]:
    """The addresses this machine's own name resolves to (macOS often lists the Wi-Fi's here)."""
    with contextlib.suppress(OSError):
        return socket.gethostbyname_ex(socket.gethostname())[2]
    return []


def reachable_from_lan(text: str) -> bool:
    """Whether phones on the local network could open this address."""
    try:
        address = ipaddress.IPv4Address(text)
    except ValueError:  # IPv6 too
        return False
    return not (address.is_loopback or address.is_link_local or address.is_unspecified or address.is_multicast
                or any(address in network for network in SKIPPED_NETWORKS))


def lan_addresses(route: Callable[[str], str | None] = route_address,
                  named: Callable[[], Iterable[str]] = hostname_addresses) -> list[str]:
    """This machine's IPv4 addresses that phones on the network can reach, the default route's first."""
    found = [*map(route, ROUTE_PROBES), *named()]
    return list(dict.fromkeys(text for text in found if text and reachable_from_lan(text)))


def print_addresses(port: int | str, addresses: list[str] | None = None) -> None:
    addresses = lan_addresses() if addresses is None else addresses
    print("\nGame-Night Companion")
    if addresses:
        print("Open this on the phones at the table (same Wi-Fi):")
        for address in addresses:
            print(f"    http://{address}:{port}/")
    else:
        print("No network address found: connect this computer to the Wi-Fi the phones use.")
    print(f"On this computer: http://localhost:{port}/\n", flush=True)


if __name__ == "__main__":
    print_addresses(sys.argv[1] if len(sys.argv) > 1 else "5000")
