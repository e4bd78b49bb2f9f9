"""Who a request counts as (``explainer.server.clients``): its socket's address, or behind a trusted proxy the address that proxy adds."""

from __future__ import annotations

import pytest
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

from explainer.cli import build_parser
from explainer.server.clients import client_of, client_of_request, trusted_networks

NGINX = trusted_networks(["127.0.0.1"])


def test_without_a_trusted_proxy_a_client_is_its_sockets_address_whatever_it_forwards():
    assert client_of("192.0.2.7") == "192.0.2.7"
    assert client_of("192.0.2.7", ["203.0.113.9"]) == "192.0.2.7"
    # The README's nginx is at 127.0.0.1; a request from elsewhere cannot pass for another client.
    assert client_of("192.0.2.7", ["203.0.113.9"], NGINX) == "192.0.2.7"


def test_behind_a_trusted_proxy_the_client_is_the_last_address_the_proxy_added():
    assert client_of("127.0.0.1", ["203.0.113.9"], NGINX) == "203.0.113.9"
    # What came before the proxy's own entry is the browser's to write: a forged first entry is ignored.
    assert client_of("127.0.0.1", ["10.9.9.9, 203.0.113.9"], NGINX) == "203.0.113.9"
    # Several header lines read as one list, in the order received.
    assert client_of("127.0.0.1", ["10.9.9.9", "198.51.100.4"], NGINX) == "198.51.100.4"
    assert client_of("127.0.0.1", ["2001:DB8:0:0::1"], NGINX) == "2001:db8::1"


def test_a_trusted_proxys_request_without_a_readable_forwarded_address_is_the_proxy():
    assert client_of("127.0.0.1", [], NGINX) == "127.0.0.1"
    assert client_of("127.0.0.1", ["unknown"], NGINX) == "127.0.0.1"
    assert client_of("127.0.0.1", ["203.0.113.9, "], NGINX) == "127.0.0.1"
    assert client_of("127.0.0.1", ["203.0.113.9:4711"], NGINX) == "127.0.0.1"


def test_a_trusted_proxy_may_be_a_network_and_ipv4_mapped_addresses_are_ipv4():
    proxies = trusted_networks(["10.0.0.0/8", "::1"])
    assert client_of("10.1.2.3", ["203.0.113.9"], proxies) == "203.0.113.9"
    assert client_of("::1", ["203.0.113.9"], proxies) == "203.0.113.9"
    assert client_of("::ffff:10.1.2.3", ["203.0.113.9"], proxies) == "203.0.113.9"
    assert client_of("::ffff:192.0.2.7") == "192.0.2.7"


def test_a_tornado_request_is_read_from_its_socket_address_and_its_forwarded_lines():
    headers = HTTPHeaders({"Host": "127.0.0.1:5006"})
    headers.add("X-Forwarded-For", "10.9.9.9")
    headers.add("X-Forwarded-For", "198.51.100.4")
    request = HTTPServerRequest(headers=headers, start_line=RequestStartLine("GET", "/binary", "HTTP/1.1"))
    request.remote_ip = "127.0.0.1"
    assert client_of_request(request, NGINX) == "198.51.100.4"
    assert client_of_request(request) == "127.0.0.1"


def test_trusted_proxy_is_a_repeatable_option_that_refuses_what_is_not_an_address(capsys):
    args = build_parser().parse_args(["serve", "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "10.0.0.0/8"])
    assert [str(network) for network in args.trusted_proxy] == ["127.0.0.1/32", "10.0.0.0/8"]
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", "--trusted-proxy", "nginx.local"])
    assert exited.value.code == 2
    assert "argument --trusted-proxy: expected an IP address" in capsys.readouterr().err
    args = build_parser().parse_args(["evaluate", "q", "r", "--serve", "--trusted-proxy", "::1"])
    assert [str(network) for network in args.trusted_proxy] == ["::1/128"]
