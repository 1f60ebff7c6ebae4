package io.rdmakv.transport.conformance;

import io.rdmakv.transport.Listener;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.Worker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A peer in a process of its own, for the suite's peer-loss case (a process killed with SIGKILL): opens the
 * transport {@code args[0]} names (a {@link TransportProvider} class with a public no-argument constructor) with the
 * connect and operation timeouts in milliseconds {@code args[1]} and {@code args[2]} and the properties
 * {@code name=value} after them, listens on a free loopback port, drives its worker on a runner, prints
 * {@code LISTENING <port>} and waits to be killed.
 */
public final class ConformancePeerChild
{
    private ConformancePeerChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final TransportProvider provider =
            (TransportProvider)Class.forName(args[0]).getDeclaredConstructor().newInstance();
        final TransportConfig.Builder config = TransportConfig.builder()
            .connectTimeout(Duration.ofMillis(Long.parseLong(args[1])))
            .operationTimeout(Duration.ofMillis(Long.parseLong(args[2])));
        for (int i = 3; i < args.length; i++)
        {
            final int eq = args[i].indexOf('=');
            config.property(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        final Transport transport = provider.open(config.build());
        final Worker worker = transport.createWorker("child");
        final Listener listener = worker.listen(new InetSocketAddress("127.0.0.1", 0), (ep, b, o, l) -> { });
        AgentRunner.startOnThread(new AgentRunner(new BackoffIdleStrategy(1, 10, 1_000, 100_000),
            Throwable::printStackTrace, null, worker));
        System.out.println("LISTENING " + listener.localAddress().getPort());
        System.out.flush();
        new CountDownLatch(1).await(); // until killed
    }
}
