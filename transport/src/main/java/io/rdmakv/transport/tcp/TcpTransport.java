package io.rdmakv.transport.tcp;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.rdmakv.transport.MemoryDomain;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.base.TransportWorkers;
import io.rdmakv.transport.tls.ReloadingTls;
import io.rdmakv.transport.tls.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An opened TCP transport: one Netty event loop group (native epoll when available and {@code tcp.nativeEpoll} is
 * not {@code false}, NIO otherwise; io_uring with {@code tcp.ioUring=true} where the kernel offers it), the memory domain, the emulated-read responder and the workers.
 *
 * <p>Properties: {@code tcp.nativeEpoll} (default true), {@code tcp.emulatedRead} (default true),
 * {@code tcp.ioThreads} (default 2), {@code tcp.maxReadBytes} (default 1 MiB), {@code tcp.spinMicros} (how long an
 * idle event loop polls before it blocks; {@link TcpSpinSelectStrategy}), {@code tcp.directWrites} (default true:
 * a connecting endpoint's caller writes its requests to the socket itself while the loop holds none; {@link TcpOutbound}).
 * With {@code tls.*} ({@link TlsSettings}) every connection speaks TLS 1.3: no direct writes and no caller lanes.
 */
public final class TcpTransport implements Transport
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpTransport.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final TransportConfig config;
    private final TransportCapabilities capabilities;
    private final TcpMemoryDomain memoryDomain = new TcpMemoryDomain();
    private final TcpEmulatedReadResponder responder;
    private final EventLoopGroup group;
    private final boolean nativeEpoll;
    /** Netty's io_uring carries the traffic ({@code tcp.ioUring}, where the kernel offers it); then not epoll. */
    private final boolean ioUring;
    /** Connecting endpoints let callers write their batches themselves ({@code tcp.directWrites}, epoll only). */
    private final boolean directWrites;
    private final long directWriteGapNanos;
    private final boolean directWritesWhenBusy;
    private final boolean emulatedRead;
    private final int maxReadBytes;
    private final int maxFrameLength;
    private final TransportWorkers<TcpWorker> workers = new TransportWorkers<>("tcp");
    /** TLS 1.3 on every connection ({@code tls.*} properties), or null; reloaded when its files change. */
    private final ReloadingTls tls;
    /** Whether accepted connections can speak TLS (this side has a certificate). */
    private final boolean tlsAccepts;

    TcpTransport(final TransportConfig config)
    {
        this.config = config;
        this.emulatedRead = config.booleanProperty(TcpTransportProvider.PROP_EMULATED_READ, true);
        this.maxReadBytes = config.intProperty(TcpTransportProvider.PROP_MAX_READ_BYTES,
            TcpTransportProvider.DEFAULT_MAX_READ_BYTES);
        if (maxReadBytes <= 0)
        {
            throw new TransportException("tcp.maxReadBytes must be positive: " + maxReadBytes);
        }
        this.capabilities = TcpTransportProvider.capabilitiesFor(config);
        this.maxFrameLength = TcpFrames.maxFrameLength(config.maxMessageBytes(), maxReadBytes);
        this.responder = new TcpEmulatedReadResponder(memoryDomain, emulatedRead, maxReadBytes);
        final int ioThreads = config.intProperty(TcpTransportProvider.PROP_IO_THREADS, 2);
        final boolean wantEpoll = config.booleanProperty(TcpTransportProvider.PROP_NATIVE_EPOLL, true);
        final boolean wantIoUring = config.booleanProperty(TcpTransportProvider.PROP_IO_URING, false);
        this.ioUring = wantIoUring && IoUring.isAvailable();
        if (wantIoUring && !ioUring)
        {
            LOG.info("tcp transport: io_uring unavailable ({}), using {}", IoUring.unavailabilityCause(),
                wantEpoll ? "epoll" : "NIO");
        }
        this.nativeEpoll = !ioUring && wantEpoll && Epoll.isAvailable();
        // Direct writes duplicate the socket's descriptor through libc (JNA or FFM): an embedder without JNA on JDK 17
        // gets the loop's writes, as before.
        final TlsSettings tlsSettings;
        try
        {
            tlsSettings = TlsSettings.of(config.properties());
            this.tlsAccepts = tlsSettings.certFile() != null;
            this.tls = tlsSettings.enabled() ? new ReloadingTls(tlsSettings, tlsAccepts) : null;
        }
        catch (final IllegalArgumentException ex)
        {
            throw new TransportException(ex.getMessage(), ex);
        }
        // A direct write puts bytes on the socket beside the pipeline: with TLS every byte goes through its handler.
        this.directWrites = !tlsSettings.enabled() && nativeEpoll && io.rdmakv.transport.libc.LibC.isLoaded() &&
            config.booleanProperty(
            TcpTransportProvider.PROP_DIRECT_WRITES, Boolean.parseBoolean(System.getProperty(
            "rdmakv.transport." + TcpTransportProvider.PROP_DIRECT_WRITES, "true")));
        this.directWritesWhenBusy = config.booleanProperty(TcpTransportProvider.PROP_DIRECT_WRITES_WHEN_BUSY, false);
        this.directWriteGapNanos = TimeUnit.MICROSECONDS.toNanos(config.intProperty(
            TcpTransportProvider.PROP_DIRECT_WRITE_GAP_MICROS, TcpTransportProvider.DEFAULT_DIRECT_WRITE_GAP_MICROS));
        final DefaultThreadFactory threads = new DefaultThreadFactory(
            "rdmakv-tcp-io-" + INSTANCES.incrementAndGet(), true);
        final int spinMicros = config.intProperty(TcpTransportProvider.PROP_SPIN_MICROS,
            Integer.getInteger("rdmakv.transport." + TcpTransportProvider.PROP_SPIN_MICROS,
            TcpTransportProvider.DEFAULT_SPIN_MICROS));
        final SelectStrategyFactory strategy = TcpSpinSelectStrategy.factory(TimeUnit.MICROSECONDS.toNanos(spinMicros));
        this.group = new MultiThreadIoEventLoopGroup(ioThreads, threads, ioUring ? IoUringIoHandler.newFactory() :
            nativeEpoll ? EpollIoHandler.newFactory(0, strategy) :
            NioIoHandler.newFactory(SelectorProvider.provider(), strategy));
        LOG.info("tcp transport opened: {} I/O, {} I/O threads (poll {} us before blocking), callers' direct writes {}, "
            + "one-sided reads {}", ioUring ? "io_uring" : nativeEpoll ? "epoll" : "NIO", ioThreads, spinMicros, directWrites ? "on" : "off",
            emulatedRead ? "EMULATED by the target's transport (software RMA)" :
            "disabled (tcp.emulatedRead=false)");
        if (tlsSettings.enabled())
        {
            LOG.info("tcp transport: {} on every connection (reloaded when its files change); no caller lanes (a " +
                "lane is a plain socket of its own, docs/security.md)", tlsSettings);
        }
        if (wantEpoll && !nativeEpoll && !ioUring)
        {
            LOG.info("tcp transport: native epoll unavailable ({}), using NIO", Epoll.unavailabilityCause());
        }
    }

    /** True when every connection speaks TLS. */
    public boolean tls()
    {
        return tls != null;
    }

    /** True when accepted connections can speak TLS: TLS on and this side has a certificate. */
    boolean tlsAccepts()
    {
        return tlsAccepts;
    }

    /** The context an accepted connection speaks TLS with, from the files as they are now. */
    SslContext tlsServer()
    {
        return tls.serverContext();
    }

    /** The context a connection made from here speaks TLS with, from the files as they are now. */
    SslContext tlsClient()
    {
        return tls.clientContext();
    }

    boolean directWrites()
    {
        return directWrites;
    }

    /** See {@link TcpTransportProvider#PROP_DIRECT_WRITES_WHEN_BUSY}. */
    boolean directWritesWhenBusy()
    {
        return directWritesWhenBusy;
    }

    /** See {@link TcpTransportProvider#PROP_DIRECT_WRITE_GAP_MICROS}. */
    long directWriteGapNanos()
    {
        return directWriteGapNanos;
    }

    @Override
    public String name()
    {
        return TcpTransportProvider.NAME;
    }

    @Override
    public TransportCapabilities capabilities()
    {
        return capabilities;
    }

    @Override
    public MemoryDomain memoryDomain()
    {
        return memoryDomain;
    }

    @Override
    public Worker createWorker(final String name)
    {
        return workers.add(() -> new TcpWorker(this, name));
    }

    /** True when Netty's io_uring carries the traffic ({@code tcp.ioUring}). */
    public boolean usesIoUring()
    {
        return ioUring;
    }

    /** True when native epoll carries the traffic (false: io_uring or NIO). */
    public boolean usesNativeEpoll()
    {
        return nativeEpoll;
    }

    /** Emulated reads answered by this transport so far. */
    public long emulatedReadsServed()
    {
        return responder.served();
    }

    /** Emulated reads refused by this transport so far (bad token, region or bounds). */
    public long emulatedReadsRefused()
    {
        return responder.refused();
    }

    TransportConfig config()
    {
        return config;
    }

    boolean emulatedReadEnabled()
    {
        return emulatedRead;
    }

    int maxReadBytes()
    {
        return maxReadBytes;
    }

    int maxFrameLength()
    {
        return maxFrameLength;
    }

    TcpEmulatedReadResponder responder()
    {
        return responder;
    }

    EventLoopGroup eventLoopGroup()
    {
        return group;
    }

    Class<? extends ServerSocketChannel> serverChannelClass()
    {
        return ioUring ? IoUringServerSocketChannel.class :
            nativeEpoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    Class<? extends SocketChannel> channelClass()
    {
        return ioUring ? IoUringSocketChannel.class : nativeEpoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    void removeWorker(final TcpWorker worker)
    {
        workers.remove(worker);
    }

    /** Close workers, deregister regions, shut the event loops down and wait for their threads to end. */
    @Override
    public void close()
    {
        final List<TcpWorker> toClose = workers.close();
        if (toClose == null)
        {
            return;
        }
        for (final TcpWorker w : toClose)
        {
            w.close();
        }
        memoryDomain.closeAll();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        try
        {
            if (!group.awaitTermination(10, TimeUnit.SECONDS))
            {
                LOG.warn("tcp transport: event loops did not terminate within 10 s");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
