package io.rdmakv.server.resp;

import io.rdmakv.server.session.Access;

import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/** One RESP connection's state (its event loop only): id, name, protocol version, whether it authenticated. */
final class RespSession
{
    private static final AtomicLong IDS = new AtomicLong();

    final long id = IDS.incrementAndGet();
    final long startedNanos = System.nanoTime();
    final SocketAddress remote;
    final SocketAddress local;
    String name;
    int proto = 2;
    boolean authenticated;
    /** What AUTH logged this connection in as: a user's role and key prefixes apply to its commands. */
    Access access = Access.OPEN;
    String lastCommand = "NULL";
    /** QUIT was answered: close once the replies before it are written. */
    boolean quitting;

    RespSession(final SocketAddress remote, final SocketAddress local, final boolean authenticated)
    {
        this.remote = remote;
        this.local = local;
        this.authenticated = authenticated;
    }

    /** CLIENT INFO's line (the fields clients and operators read; see docs/resp.md). */
    String info()
    {
        final long age = (System.nanoTime() - startedNanos) / 1_000_000_000L;
        return "id=" + id + " addr=" + address(remote) + " laddr=" + address(local) + " name=" +
            (name == null ? "" : name) + " age=" + age + " idle=0 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 " +
            "resp=" + proto + " cmd=" + lastCommand + " user=default lib-name= lib-ver=\n";
    }

    private static String address(final SocketAddress a)
    {
        final String s = String.valueOf(a);
        return s.startsWith("/") ? s.substring(1) : s;
    }
}
