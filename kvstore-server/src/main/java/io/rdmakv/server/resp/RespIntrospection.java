package io.rdmakv.server.resp;

import io.rdmakv.server.metrics.BuildInfo;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the RESP listener says about the node: HELLO's map, INFO's sections and COMMAND's tables. Figures come from
 * the node ({@link RespNode}) and the listener's own counts.
 */
final class RespIntrospection
{
    /** The Redis version clients are told (the command set and replies follow Redis 7.2 where they exist here). */
    static final String REDIS_COMPAT_VERSION = "7.2.0";
    private static final List<String> SECTIONS = List.of("server", "clients", "memory", "stats", "replication",
        "cluster", "keyspace");

    private final RespNode node;
    private final int port;
    private final long startedMillis = System.currentTimeMillis();
    final AtomicLong connected = new AtomicLong();
    final AtomicLong connectionsTotal = new AtomicLong();
    final AtomicLong commandsTotal = new AtomicLong();
    final AtomicLong rejectedConnections = new AtomicLong();

    RespIntrospection(final RespNode node, final int port)
    {
        this.node = node;
        this.port = port;
    }

    long keyCount()
    {
        return node.keyCount();
    }

    RespReply hello(final RespSession session)
    {
        return RespReply.map(List.of(
            RespReply.bulk("server"), RespReply.bulk("redis"),
            RespReply.bulk("version"), RespReply.bulk(REDIS_COMPAT_VERSION),
            RespReply.bulk("proto"), RespReply.integer(session.proto),
            RespReply.bulk("id"), RespReply.integer(session.id),
            RespReply.bulk("mode"), RespReply.bulk(node.clustered() ? "cluster" : "standalone"),
            RespReply.bulk("role"), RespReply.bulk("master"),
            RespReply.bulk("modules"), RespReply.array(List.of())));
    }

    /** INFO [section ...]: default, all and everything are every section. */
    String info(final byte[][] args)
    {
        final List<String> wanted = new ArrayList<>();
        for (int i = 1; i < args.length; i++)
        {
            final String s = CommandTable.lower(args[i]);
            if (s.equals("all") || s.equals("everything") || s.equals("default"))
            {
                wanted.addAll(SECTIONS);
            }
            else
            {
                wanted.add(s);
            }
        }
        if (wanted.isEmpty())
        {
            wanted.addAll(SECTIONS);
        }
        final StringBuilder sb = new StringBuilder();
        for (final String section : SECTIONS)
        {
            if (wanted.contains(section))
            {
                if (sb.length() > 0)
                {
                    sb.append("\r\n");
                }
                section(sb, section);
            }
        }
        return sb.toString();
    }

    private void section(final StringBuilder sb, final String section)
    {
        sb.append("# ").append(Character.toUpperCase(section.charAt(0))).append(section.substring(1)).append("\r\n");
        switch (section)
        {
            case "server" -> line(sb, "redis_version", REDIS_COMPAT_VERSION)
                .line(sb, "rdmakv_version", BuildInfo.current().version())
                .line(sb, "redis_mode", node.clustered() ? "cluster" : "standalone")
                .line(sb, "os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " +
                    System.getProperty("os.arch"))
                .line(sb, "process_id", ProcessHandle.current().pid())
                .line(sb, "run_id", "rdmakv-node-" + node.nodeId())
                .line(sb, "tcp_port", port)
                .line(sb, "uptime_in_seconds", (System.currentTimeMillis() - startedMillis) / 1000);
            case "clients" -> line(sb, "connected_clients", connected.get())
                .line(sb, "blocked_clients", 0);
            case "memory" -> line(sb, "used_memory", usedHeap())
                .line(sb, "used_memory_human", String.format(Locale.ROOT, "%.2fM", usedHeap() / 1048576.0))
                .line(sb, "rdmakv_pool_bytes", node.poolBytes())
                .line(sb, "maxmemory", 0)
                .line(sb, "maxmemory_policy", "noeviction");
            case "stats" -> line(sb, "total_connections_received", connectionsTotal.get())
                .line(sb, "total_commands_processed", commandsTotal.get())
                .line(sb, "rejected_connections", rejectedConnections.get())
                .line(sb, "expired_keys", 0)
                .line(sb, "evicted_keys", 0);
            case "replication" -> line(sb, "role", "master")
                .line(sb, "connected_slaves", 0);
            // Redis Cluster clients (redis-py's RedisCluster) read cluster_enabled before they ask CLUSTER SLOTS; every
            // node answers the CLUSTER commands (a single node is a cluster of one).
            case "cluster" -> line(sb, "cluster_enabled", 1);
            case "keyspace" ->
            {
                final long keys = node.keyCount();
                if (keys > 0)
                {
                    line(sb, "db0", "keys=" + keys + ",expires=0,avg_ttl=0");
                }
            }
            default -> throw new IllegalStateException(section);
        }
    }

    private static long usedHeap()
    {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private RespIntrospection line(final StringBuilder sb, final String name, final Object value)
    {
        sb.append(name).append(':').append(value).append("\r\n");
        return this;
    }

    /** COMMAND, COMMAND COUNT, COMMAND INFO name..., COMMAND DOCS [name...]. */
    RespReply command(final byte[][] args)
    {
        if (args.length == 1)
        {
            final List<RespReply> all = new ArrayList<>();
            CommandTable.COMMANDS.values().forEach(spec -> all.add(spec.info()));
            return RespReply.array(all);
        }
        final String sub = CommandTable.lower(args[1]);
        switch (sub)
        {
            case "count":
                return RespReply.integer(CommandTable.COMMANDS.size());
            case "info":
            {
                final List<RespReply> out = new ArrayList<>();
                for (int i = 2; i < args.length; i++)
                {
                    final CommandTable.Spec spec = CommandTable.find(CommandTable.lower(args[i]));
                    out.add(spec == null ? RespReply.NULL : spec.info());
                }
                return RespReply.array(out);
            }
            case "docs":
            {
                final List<RespReply> out = new ArrayList<>();
                for (final CommandTable.Spec spec : CommandTable.COMMANDS.values())
                {
                    if (args.length == 2 || named(args, spec.name()))
                    {
                        out.add(RespReply.bulk(spec.name()));
                        out.add(spec.docs());
                    }
                }
                return RespReply.map(out);
            }
            default:
                return RespReply.error("ERR unknown subcommand '" + sub + "'. Try COMMAND HELP.");
        }
    }

    private static boolean named(final byte[][] args, final String name)
    {
        for (int i = 2; i < args.length; i++)
        {
            if (CommandTable.lower(args[i]).equals(name))
            {
                return true;
            }
        }
        return false;
    }
}
