"""The addresses `make run` prints for the phones: from the route to the network, never from `hostname -I`."""

from __future__ import annotations

import socket
import subprocess

import pytest

from companion.web import lan


def routes(table: dict[str, str]):
    """A routing table as the probes see it: destination → local address (no entry: no route)."""
    return lambda destination: table.get(destination)


@pytest.mark.parametrize(("table", "named", "expected"), [
    # a laptop on the home Wi-Fi
    ({"192.0.2.1": "192.168.1.20", "192.168.0.1": "192.168.1.20"}, [], ["192.168.1.20"]),
    # a VPN (Tailscale's range) holds the default route; the private range still leads to the Wi-Fi
    ({"192.0.2.1": "100.101.102.103", "192.168.0.1": "100.101.102.103", "10.0.0.1": "10.0.0.5"}, [],
     ["10.0.0.5"]),
    # Docker's bridge and a macOS proxy app's fake address are never offered
    ({"192.0.2.1": "198.18.0.1", "172.16.0.1": "172.17.0.1"}, ["192.168.178.30"], ["192.168.178.30"]),
    # a server with a public address, and its name resolving to the loopback (Debian's 127.0.1.1)
    ({"192.0.2.1": "203.0.113.7"}, ["127.0.1.1"], ["203.0.113.7"]),
    # no network at all
    ({}, ["127.0.0.1"], []),
    # the same address found twice is listed once, the default route's first
    ({"192.0.2.1": "192.168.1.20", "10.0.0.1": "10.1.2.3"}, ["10.1.2.3", "192.168.1.20"],
     ["192.168.1.20", "10.1.2.3"]),
])
def test_addresses_come_from_the_routes_to_the_network(table, named, expected):
    assert lan.lan_addresses(route=routes(table), named=lambda: named) == expected


@pytest.mark.parametrize(("text", "reachable"), [
    ("192.168.1.20", True), ("10.0.0.5", True), ("172.20.0.3", True), ("203.0.113.7", True),
    ("127.0.0.1", False), ("169.254.10.1", False), ("0.0.0.0", False), ("100.64.0.1", False),
    ("172.17.0.1", False), ("198.18.0.1", False), ("fe80::1", False), ("not an address", False),
])
def test_which_addresses_phones_can_reach(text, reachable):
    assert lan.reachable_from_lan(text) is reachable


def test_the_route_probe_sends_nothing_and_never_runs_hostname(monkeypatch):
    sent = []

    class Probe(socket.socket):
        def send(self, *args, **kwargs):  # pragma: no cover - must not be called
            sent.append(args)
            return super().send(*args, **kwargs)

        sendto = send

    def no_subprocess(*args, **kwargs):
        raise AssertionError("hostname -I must not be run")

    monkeypatch.setattr(lan.socket, "socket", Probe)
    monkeypatch.setattr(subprocess, "run", no_subprocess)
    # the loopback route exists on every machine, online or not
    assert lan.route_address("127.0.0.1") == "127.0.0.1"
    lan.lan_addresses()
    assert sent == []


def test_no_route_is_no_address(monkeypatch):
    class Unreachable(socket.socket):
        def connect(self, address):
            raise OSError(101, "Network is unreachable")

    monkeypatch.setattr(lan.socket, "socket", Unreachable)
    assert lan.route_address("192.0.2.1") is None


def test_printed_addresses(capsys):
    lan.print_addresses(8000, ["192.168.1.20"])
    lan.print_addresses(8000, [])
    out = capsys.readouterr().out
    assert "http://192.168.1.20:8000/" in out
    assert "No network address found" in out
    assert out.count("http://localhost:8000/") == 2
