package io.rdmakv.server.config;

import java.util.List;

/**
 * Settings that bound what a node accepts: sizes of keys, values and messages, connections, unauthenticated
 * connections, failed credentials and session tickets ({@code limits.*}, {@code auth.*} timings). Each is declared
 * once here; see {@link Setting}.
 */
public final class LimitKeys
{
    public static final Setting<Integer> MAX_KEY_BYTES = Setting.whole("limits.maxKeyBytes", "bytes", 1024, 1,
        ServerConfig.FORMAT_MAX_KEY_BYTES, "largest key");

    /** Key + value must fit in one extent: its upper bound is that minus {@link #MAX_KEY_BYTES} (checked after). */
    public static final Setting<Integer> MAX_VALUE_BYTES = Setting.whole("limits.maxValueBytes", "bytes", 1 << 20, 0,
        ServerConfig.FORMAT_MAX_KEY_PLUS_VALUE - 1, "largest value (at most the upper bound minus " +
            "limits.maxKeyBytes: key and value share one extent)");

    /** Its lower bound is derived: {@link #MAX_KEY_BYTES} + {@link #MAX_VALUE_BYTES} + the message overhead. */
    public static final Setting<Integer> MAX_MESSAGE_BYTES = Setting.whole("limits.maxMessageBytes", "bytes", null, 1,
        Integer.MAX_VALUE, "largest data-plane message (default and least: header + key + value + slack)");

    public static final Setting<Integer> MAX_CONNECTIONS = count("limits.maxConnections", 1024, "authenticated " +
        "connections per plane (control: after a WELCOME; data: after a valid ATTACH); beyond, a HELLO gets " +
        "REJECT(BUSY), an ATTACH BUSY");

    public static final Setting<Integer> MAX_UNAUTHENTICATED = count("limits.maxUnauthenticated", 1024,
        "connections per plane that have not authenticated yet; a newcomer beyond sheds the oldest");

    public static final Setting<Integer> MAX_UNAUTHENTICATED_PER_SOURCE = count("limits.maxUnauthenticatedPerSource",
        64, "of those from one source address (IPv6: one /64); beyond, its oldest is shed");

    public static final Setting<Integer> HANDSHAKE_TIMEOUT_MS = millis("auth.handshakeTimeoutMs", 5000, "how long a " +
        "connection may stay unauthenticated before it is closed (and a control connection may stay open after its " +
        "WELCOME)");

    public static final Setting<Integer> FAILED_CREDENTIAL_BURST = count("auth.failedCredentialBurst", 10,
        "wrong credentials one source address may send at once; then ...");

    public static final Setting<Integer> FAILED_CREDENTIAL_INTERVAL_MS = millis("auth.failedCredentialIntervalMs",
        1000, "... one per interval: a HELLO from it waits for its turn (REJECT BUSY if that is past the handshake " +
            "timeout); other sources are not slowed");

    public static final Setting<Integer> TICKET_TTL_MS = millis("auth.ticketTtlMs", 30_000, "how long a WELCOME's " +
        "session ticket may wait for the ATTACH that opens a data endpoint (single use)");

    /** In the order {@code --list-settings} shows them. */
    static final List<Setting<?>> ALL = List.of(MAX_KEY_BYTES, MAX_VALUE_BYTES, MAX_MESSAGE_BYTES, MAX_CONNECTIONS,
        MAX_UNAUTHENTICATED, MAX_UNAUTHENTICATED_PER_SOURCE, HANDSHAKE_TIMEOUT_MS, FAILED_CREDENTIAL_BURST,
        FAILED_CREDENTIAL_INTERVAL_MS, TICKET_TTL_MS);

    private LimitKeys()
    {
    }

    private static Setting<Integer> count(final String name, final int defaultValue, final String description)
    {
        return Setting.whole(name, "int", defaultValue, 1, 1_000_000, description);
    }

    private static Setting<Integer> millis(final String name, final int defaultValue, final String description)
    {
        return Setting.whole(name, "ms", defaultValue, 1, 3_600_000, description);
    }
}
