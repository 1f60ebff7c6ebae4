package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.WorkerPinning;

import java.util.List;
import java.util.Locale;

/**
 * The verbs transport's settings, read once from {@link TransportConfig} properties under {@code verbs.}. Every value
 * is checked here so that bad input fails {@code open} with a message naming the property.
 *
 * <table>
 *   <caption>properties</caption>
 *   <tr><td>verbs.device</td><td>device name (default: the first with an ACTIVE port)</td></tr>
 *   <tr><td>verbs.port</td><td>port number (1)</td></tr>
 *   <tr><td>verbs.gidIndex</td><td>GID index (-1 = the first IPv4-mapped GID, i.e. RoCE v2 IPv4: 1 on rxe)</td></tr>
 *   <tr><td>verbs.timeout</td><td>local ACK timeout exponent, 4.096 us * 2^n (14)</td></tr>
 *   <tr><td>verbs.retryCount</td><td>transport retries before IBV_WC_RETRY_EXC_ERR (7)</td></tr>
 *   <tr><td>verbs.rnrRetry</td><td>RNR retries, 7 = infinite (7)</td></tr>
 *   <tr><td>verbs.minRnrTimer</td><td>RNR NAK timer code (1 = 0.01 ms)</td></tr>
 *   <tr><td>verbs.sendDepth</td><td>send work requests and send buffers per endpoint (maxInflightPerEndpoint)</td></tr>
 *   <tr><td>verbs.recvDepth</td><td>receive buffers per endpoint (maxInflightPerEndpoint)</td></tr>
 *   <tr><td>verbs.fragmentBytes</td><td>receive buffer size; larger messages are fragmented (16384)</td></tr>
 *   <tr><td>verbs.maxEndpoints</td><td>endpoints one worker can have open at once: each worker registers their
 *       buffers once when it is created, (sendDepth + recvDepth) x fragmentBytes + readBounceBytes per endpoint
 *       (about 5 MiB at the defaults); {@link VerbsTransportProvider#workerPinning} computes the block from these
 *       settings ({@link TransportConfig#endpointSlots()} when set, else 16)</td></tr>
 *   <tr><td>verbs.handshakeTimeoutMs</td><td>how long an accepted control connection may take to finish the
 *       handshake (HELLO, then READY or the first message) before it is closed, its endpoint slot and descriptor
 *       freed ({@value #DEFAULT_HANDSHAKE_TIMEOUT_MS})</td></tr>
 *   <tr><td>verbs.cqDepth</td><td>completion queue entries per worker (max(8192, maxEndpoints x (sendDepth +
 *       recvDepth)))</td></tr>
 *   <tr><td>verbs.pollBatch</td><td>completions polled per doWork (32)</td></tr>
 *   <tr><td>verbs.signalInterval</td><td>unsignaled sends between signaled ones (sendDepth / 4)</td></tr>
 *   <tr><td>verbs.readBounceBytes</td><td>per-endpoint area reads land in before the copy (1 MiB + 4 KiB)</td></tr>
 *   <tr><td>verbs.maxInline</td><td>inline data asked of the QP (64)</td></tr>
 *   <tr><td>verbs.idle</td><td>how an idle worker's progress thread waits: {@code events} (spin briefly, then sleep
 *       on the worker's completion channel and eventfd: no CPU when idle) or {@code poll} (spin, yield, then park
 *       at most 100 us and poll again: lowest wake-up latency, for a dedicated core) (events)</td></tr>
 *   <tr><td>verbs.idleWaitMs</td><td>events only: the longest an idle worker sleeps after work before a
 *       housekeeping pass (operation timeouts, the application's timers) (10)</td></tr>
 *   <tr><td>verbs.idleMaxWaitMs</td><td>events only: while consecutive sleeps find nothing to do, each is twice as
 *       long as the last, up to this; also how late a quiet worker's timers may run (max(100, verbs.idleWaitMs))
 *       </td></tr>
 * </table>
 */
public final class VerbsConfig
{
    public static final int DEFAULT_FRAGMENT_BYTES = 16 * 1024;
    /** Endpoints per worker unless {@code verbs.maxEndpoints} or {@link TransportConfig#endpointSlots()} says so. */
    public static final int DEFAULT_MAX_ENDPOINTS = 16;
    /** {@code verbs.idle} unless set. */
    public static final IdleMode DEFAULT_IDLE = IdleMode.EVENTS;
    /** {@code verbs.idleWaitMs} unless set: the worker checks operation timeouts every 10 ms anyway. */
    public static final int DEFAULT_IDLE_WAIT_MS = 10;
    /**
     * {@code verbs.idleMaxWaitMs} unless set (or {@code verbs.idleWaitMs} when that is longer): a quiet worker wakes
     * about 10 times a second instead of 100, and no duty timer runs more than a tenth of a second late (the
     * timeouts it serves are seconds long; see {@link io.rdmakv.transport.WorkerProgress}).
     */
    public static final int DEFAULT_IDLE_MAX_WAIT_MS = 100;
    /** {@code verbs.handshakeTimeoutMs} unless set: a few seconds, ample for a QP's moves to RTS under emulation. */
    public static final int DEFAULT_HANDSHAKE_TIMEOUT_MS = 5_000;

    /** How an idle worker waits ({@code verbs.idle}). */
    public enum IdleMode
    {
        /** Sleep on the completion channel and an eventfd (the worker is ARMABLE). */
        EVENTS,
        /** Bounded parks and polling (the worker is POLLED). */
        POLL;

        /** The setting's spelling. */
        public String settingValue()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    final String device;
    final int port;
    final int gidIndex;
    final int timeout;
    final int retryCount;
    final int rnrRetry;
    final int minRnrTimer;
    final int sendDepth;
    final int recvDepth;
    final int fragmentBytes;
    final int maxEndpoints;
    final int cqDepth;
    final int pollBatch;
    final int signalInterval;
    final int maxInline;
    final int maxMessageBytes;
    final int maxPending;
    final int readBounceBytes;
    final long connectTimeoutMs;
    final long handshakeTimeoutMs;
    final long operationTimeoutNs;
    final IdleMode idle;
    final long idleWaitNs;
    final long idleMaxWaitNs;

    VerbsConfig(final TransportConfig config)
    {
        device = config.property("verbs.device", null);
        port = range(config, "verbs.port", 1, 1, 255);
        gidIndex = range(config, "verbs.gidIndex", -1, -1, 65535);
        timeout = range(config, "verbs.timeout", 14, 0, 31);
        retryCount = range(config, "verbs.retryCount", 7, 0, 7);
        rnrRetry = range(config, "verbs.rnrRetry", 7, 0, 7);
        minRnrTimer = range(config, "verbs.minRnrTimer", 1, 0, 31);
        sendDepth = range(config, "verbs.sendDepth", Math.max(8, config.maxInflightPerEndpoint()), 8, 16384);
        recvDepth = range(config, "verbs.recvDepth", Math.max(8, config.maxInflightPerEndpoint()), 4, 16384);
        fragmentBytes = range(config, "verbs.fragmentBytes", DEFAULT_FRAGMENT_BYTES, 256, 1 << 20);
        maxEndpoints = range(config, "verbs.maxEndpoints",
            config.endpointSlots() > 0 ? config.endpointSlots() : DEFAULT_MAX_ENDPOINTS, 1, 65536);
        cqDepth = range(config, "verbs.cqDepth",
            (int)Math.min(1 << 22, Math.max(8192L, (long)maxEndpoints * (sendDepth + recvDepth))), 64, 1 << 22);
        pollBatch = range(config, "verbs.pollBatch", 32, 1, 1024);
        signalInterval = range(config, "verbs.signalInterval", Math.max(1, sendDepth / 4), 1, sendDepth / 2);
        maxInline = range(config, "verbs.maxInline", 64, 0, 1024);
        maxMessageBytes = config.maxMessageBytes();
        maxPending = config.maxPendingPerEndpoint();
        readBounceBytes = range(config, "verbs.readBounceBytes",
            VerbsTransportProvider.MAX_READ_BYTES, VerbsTransportProvider.MAX_READ_BYTES, 1 << 30);
        connectTimeoutMs = Math.max(1, config.connectTimeout().toMillis());
        handshakeTimeoutMs = range(config, "verbs.handshakeTimeoutMs", DEFAULT_HANDSHAKE_TIMEOUT_MS, 1, 600_000);
        operationTimeoutNs = Math.max(1, config.operationTimeout().toNanos());
        idle = idleMode(config.property("verbs.idle", DEFAULT_IDLE.settingValue()));
        final int idleWaitMs = range(config, "verbs.idleWaitMs", DEFAULT_IDLE_WAIT_MS, 1, 1000);
        idleWaitNs = idleWaitMs * 1_000_000L;
        final int idleMaxWaitMs = range(config, "verbs.idleMaxWaitMs", Math.max(DEFAULT_IDLE_MAX_WAIT_MS, idleWaitMs),
            1, 10_000);
        if (idleMaxWaitMs < idleWaitMs)
        {
            throw new TransportException("property verbs.idleMaxWaitMs = " + idleMaxWaitMs + " is less than " +
                "verbs.idleWaitMs = " + idleWaitMs + " (the back-off starts at verbs.idleWaitMs)");
        }
        idleMaxWaitNs = idleMaxWaitMs * 1_000_000L;
    }

    /**
     * The layout of one endpoint's slice of a worker's buffers: the configured depths, capped at the device's
     * {@code max_qp_wr} ({@link Integer#MAX_VALUE} when no device is known). The worker and
     * {@link VerbsTransportProvider#workerPinning} both size the buffers here.
     */
    EndpointBufferLayout endpointLayout(final int deviceMaxQpWr)
    {
        return new EndpointBufferLayout(Math.min(sendDepth, deviceMaxQpWr), Math.min(recvDepth, deviceMaxQpWr),
            fragmentBytes, readBounceBytes);
    }

    /** What one worker registers at creation: {@code maxEndpoints} slices of {@link #endpointLayout}. */
    WorkerPinning workerPinning(final int deviceMaxQpWr)
    {
        final EndpointBufferLayout layout = endpointLayout(deviceMaxQpWr);
        return new WorkerPinning(layout.poolBytes(maxEndpoints), layout.describeBlock(maxEndpoints), List.of(
            "verbs.maxEndpoints (now " + maxEndpoints + ")",
            "verbs.sendDepth (now " + layout.sendDepth + ")",
            "verbs.recvDepth (now " + layout.recvDepth + ")"));
    }

    private static IdleMode idleMode(final String value)
    {
        for (final IdleMode mode : IdleMode.values())
        {
            if (mode.settingValue().equals(value.trim().toLowerCase(Locale.ROOT)))
            {
                return mode;
            }
        }
        throw new TransportException("property verbs.idle = '" + value + "' is not one of events, poll");
    }

    private static int range(
        final TransportConfig config, final String name, final int defaultValue, final int min, final int max)
    {
        final int value;
        try
        {
            value = config.intProperty(name, defaultValue);
        }
        catch (final NumberFormatException e)
        {
            throw new TransportException("property " + name + " is not an integer: '" +
                config.property(name, "") + "'", e);
        }
        if (value < min || value > max)
        {
            throw new TransportException("property " + name + " = " + value + " is outside " + min + ".." + max);
        }
        return value;
    }
}
