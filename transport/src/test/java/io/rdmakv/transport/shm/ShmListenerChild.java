package io.rdmakv.transport.shm;

import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.Worker;

import java.net.InetSocketAddress;

/** A child process for {@link ShmCrashCleanupTest}: listens on shm port args[0] with a registered region, then waits. */
public final class ShmListenerChild
{
    private ShmListenerChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Transport transport = new ShmTransportProvider().open(TransportConfig.defaults());
        final Worker worker = transport.createWorker("child");
        final SharedMapping memory = SharedMapping.create("rdmakv-child-region", 1 << 20);
        transport.memoryDomain().register(memory.address(), 1 << 20,
            java.util.EnumSet.of(io.rdmakv.transport.MemoryAccess.REMOTE_READ));
        worker.listen(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), (ep, b, o, l) -> { });
        worker.doWork();
        System.out.println("LISTENING");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
