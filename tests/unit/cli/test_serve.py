"""`brain serve`'s listening socket (cli/serve.py)."""

from __future__ import annotations

import asyncio
import socket

from cli.serve import claim_port


async def test_connections_on_the_claimed_port_send_small_writes_at_once() -> None:
    """asyncio turns Nagle's algorithm off only on sockets that say they are TCP: on one made
    with protocol 0, a keep-alive response written in two parts (headers, body) waited 40 ms
    for the client's delayed ACK, on every request after a connection's first."""
    sock = claim_port("127.0.0.1", 0)
    sock.listen()
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = writer.get_extra_info("socket")
        seen.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(accepted, sock=sock)
    try:
        _, writer = await asyncio.open_connection(*sock.getsockname())
        assert await asyncio.wait_for(seen, 5) != 0
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
