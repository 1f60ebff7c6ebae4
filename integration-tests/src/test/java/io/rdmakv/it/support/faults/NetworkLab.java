package io.rdmakv.it.support.faults;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A private network of Linux network namespaces for partition tests: one namespace per node, each with one veth
 * whose peer sits on a bridge in a hub namespace, plus one veth from the test's own namespace to the same bridge so
 * the test's clients reach every node. All addresses are in a random 10.233.x.0/24; nothing else of the host is
 * touched. A partition is a pair of blackhole routes (each side drops packets to the other); {@link #heal()} removes
 * them. {@link #close()} deletes every namespace (and with them every veth), also from a shutdown hook.
 *
 * <pre>
 *   test JVM (host ns)            hub ns                      node ns i
 *   [rkvXXXXXh 10.233.x.254] ---- [br0] --- [port i] ---------- [eth0 10.233.x.(i+1)]
 * </pre>
 *
 * Needs root and iproute2; {@link #unavailableReason()} says why not, for a test's assumption.
 */
public final class NetworkLab implements AutoCloseable
{
    /** A port nothing listens on in a fresh namespace (discard): reachability probes expect a refusal. */
    private static final int PROBE_PORT = 9;
    private static final Set<NetworkLab> OPEN = ConcurrentHashMap.newKeySet();

    static
    {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> OPEN.forEach(NetworkLab::close), "rdmakv-netns-janitor"));
    }

    private final String prefix;
    private final int subnet;
    private final List<String> namespaces = new ArrayList<>();
    private final int nodes;
    private boolean closed;

    private NetworkLab(final int nodes)
    {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        this.prefix = "rkv" + Integer.toHexString(0x10000 + random.nextInt(0xEFFFF));
        this.subnet = random.nextInt(1, 255);
        this.nodes = nodes;
    }

    /** Why a lab cannot be made here, or null when it can. */
    public static String unavailableReason()
    {
        if (!Commands.isRoot())
        {
            return "network namespaces need root (this JVM is not uid 0)";
        }
        final Commands.Result ip = Commands.run(List.of("ip", "-V"));
        if (!ip.ok())
        {
            return "iproute2's ip is missing: " + ip.output().strip();
        }
        return null;
    }

    /** Make {@code nodes} node namespaces joined by a bridge; on any failure everything made so far is deleted. */
    public static NetworkLab create(final int nodes)
    {
        if (nodes < 1 || nodes > 200)
        {
            throw new IllegalArgumentException("nodes must be 1..200: " + nodes);
        }
        final String reason = unavailableReason();
        if (reason != null)
        {
            throw new IllegalStateException(reason);
        }
        final NetworkLab lab = new NetworkLab(nodes);
        OPEN.add(lab);
        try
        {
            lab.build();
            return lab;
        }
        catch (final RuntimeException ex)
        {
            lab.close();
            throw ex;
        }
    }

    private void build()
    {
        final String hub = prefix + "-hub";
        addNamespace(hub);
        ip(hub, "link", "add", "br0", "type", "bridge");
        ip(hub, "link", "set", "br0", "up");
        // The test's own end: created in the hub, one side moved to the host namespace.
        final String hostEnd = prefix + "h";
        ip(hub, "link", "add", "uplink", "type", "veth", "peer", "name", hostEnd);
        ip(hub, "link", "set", hostEnd, "netns", Long.toString(ProcessHandle.current().pid()));
        ip(hub, "link", "set", "uplink", "master", "br0");
        ip(hub, "link", "set", "uplink", "up");
        Commands.runOrThrow(List.of("ip", "addr", "add", hostAddress() + "/24", "dev", hostEnd));
        Commands.runOrThrow(List.of("ip", "link", "set", hostEnd, "up"));
        for (int i = 0; i < nodes; i++)
        {
            final String ns = namespace(i);
            addNamespace(ns);
            ip(ns, "link", "set", "lo", "up");
            ip(hub, "link", "add", "port" + i, "type", "veth", "peer", "name", "eth0");
            ip(hub, "link", "set", "eth0", "netns", ns);
            ip(hub, "link", "set", "port" + i, "master", "br0");
            ip(hub, "link", "set", "port" + i, "up");
            ip(ns, "addr", "add", address(i) + "/24", "dev", "eth0");
            ip(ns, "link", "set", "eth0", "up");
        }
    }

    /** The namespace of node {@code i}. */
    public String namespace(final int i)
    {
        checkNode(i);
        return prefix + "-n" + i;
    }

    /** Node {@code i}'s address (bind and advertise it). */
    public String address(final int i)
    {
        checkNode(i);
        return "10.233." + subnet + "." + (i + 1);
    }

    /** The test JVM's own address on the lab's network. */
    public String hostAddress()
    {
        return "10.233." + subnet + ".254";
    }

    /** The prefix that runs a command inside node {@code i}'s namespace. */
    public List<String> commandPrefix(final int i)
    {
        return List.of("ip", "netns", "exec", namespace(i));
    }

    /** Cut every node of {@code a} off from every node of {@code b}, both ways (the host still reaches both). */
    public void partition(final Collection<Integer> a, final Collection<Integer> b)
    {
        for (final int x : a)
        {
            for (final int y : b)
            {
                if (x == y)
                {
                    throw new IllegalArgumentException("node " + x + " on both sides of a partition");
                }
                blackhole(x, y);
                blackhole(y, x);
            }
        }
    }

    /** Cut node {@code i} off from everything, the test JVM's clients included. */
    public void isolate(final int i)
    {
        for (int j = 0; j < nodes; j++)
        {
            if (j != i)
            {
                blackhole(i, j);
                blackhole(j, i);
            }
        }
        ip(namespace(i), "route", "add", "blackhole", hostAddress() + "/32");
    }

    /** Remove every blackhole route: full connectivity again. */
    public void heal()
    {
        for (int i = 0; i < nodes; i++)
        {
            ip(namespace(i), "route", "flush", "type", "blackhole");
        }
    }

    /**
     * Whether node {@code from}'s kernel gets an answer from {@code to}'s: a TCP connect to a port nobody listens on
     * is refused (a reset came back) when the path works both ways, and fails otherwise (blackhole, no answer within
     * 2 s). Uses bash's /dev/tcp, so no ping or netcat is needed.
     */
    public boolean canReach(final int from, final int to)
    {
        final List<String> command = new ArrayList<>(commandPrefix(from));
        command.addAll(List.of("timeout", "2", "bash", "-c", "exec 3<>/dev/tcp/" + address(to) + "/" + PROBE_PORT));
        return Commands.run(command).output().contains("refused");
    }

    /** Whether the test JVM gets an answer from node {@code to} (a refused connect, as {@link #canReach}). */
    public boolean hostCanReach(final int to)
    {
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress(address(to), PROBE_PORT), 2_000);
            throw new IllegalStateException("something listens on " + address(to) + ":" + PROBE_PORT + " in " + namespace(to));
        }
        catch (final ConnectException ex)
        {
            return ex.getMessage() != null && ex.getMessage().contains("refused");
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /** The namespaces this lab made (for tests of the lab itself). */
    public List<String> namespaces()
    {
        return List.copyOf(namespaces);
    }

    /** Delete every namespace (idempotent; processes still inside keep theirs alive until they exit). */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (int i = namespaces.size() - 1; i >= 0; i--)
        {
            Commands.run(List.of("ip", "netns", "delete", namespaces.get(i)));
        }
        Commands.run(List.of("ip", "link", "delete", prefix + "h"));
        OPEN.remove(this);
    }

    @Override
    public String toString()
    {
        return "NetworkLab " + prefix + " (" + nodes + " nodes, 10.233." + subnet + ".0/24)";
    }

    private void blackhole(final int in, final int to)
    {
        ip(namespace(in), "route", "replace", "blackhole", address(to) + "/32");
    }

    private void addNamespace(final String ns)
    {
        Commands.runOrThrow(List.of("ip", "netns", "add", ns));
        namespaces.add(ns);
    }

    private static void ip(final String ns, final String... args)
    {
        final List<String> command = new ArrayList<>(List.of("ip", "-n", ns));
        command.addAll(List.of(args));
        Commands.runOrThrow(command);
    }

    private void checkNode(final int i)
    {
        if (i < 0 || i >= nodes)
        {
            throw new IllegalArgumentException("node " + i + " not in 0.." + (nodes - 1));
        }
    }
}
