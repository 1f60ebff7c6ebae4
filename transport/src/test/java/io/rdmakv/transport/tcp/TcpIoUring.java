package io.rdmakv.transport.tcp;

import io.netty.channel.uring.IoUring;
import io.rdmakv.transport.TransportConfig;
import org.junit.jupiter.api.Assumptions;

/** The tcp suites over Netty's io_uring ({@code tcp.ioUring=true}); skipped where the kernel does not offer it. */
final class TcpIoUring
{
    private TcpIoUring()
    {
    }

    /** {@code base} with io_uring on; skips the test (with the kernel's reason) where io_uring is unavailable. */
    static TransportConfig on(final TransportConfig base)
    {
        Assumptions.assumeTrue(IoUring.isAvailable(), () -> "io_uring unavailable: " + IoUring.unavailabilityCause());
        return base.toBuilder().property(TcpTransportProvider.PROP_IO_URING, "true").build();
    }
}
