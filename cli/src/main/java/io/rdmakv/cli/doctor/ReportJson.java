package io.rdmakv.cli.doctor;

import io.rdmakv.transport.device.RdmaDevice;
import io.rdmakv.transport.device.RdmaPort;
import io.rdmakv.transport.device.GidEntry;
import io.rdmakv.transport.device.PortAttributes;
import java.util.Map;

/**
 * Renders a {@link DoctorReport} as one JSON document for scripts and monitoring:
 * <pre>
 *   {"verdict":"WARN","exitCode":0,
 *    "sections":[{"title":"...","status":"WARN","checks":[{"name":"...","status":"WARN","message":"...",
 *                 "details":["..."],"fix":"..."}]}],
 *    "devices":[{"name":"mlx5_0","nodeType":"CA","firmware":"...","nodeGuid":"...","boardId":"...",
 *                "ports":[{"port":1,"state":"ACTIVE","stateCode":4,"physState":"LinkUp","physStateCode":5,
 *                          "rate":"...","linkLayer":"InfiniBand","lid":1,"activeMtu":4096,"maxMtu":4096,
 *                          "portQuery":{"state":"ACTIVE","activeMtu":4096,"maxMtu":4096,"width":"4X",
 *                                       "speed":"25.0 Gbps","linkLayer":"InfiniBand","lid":1},
 *                          "gids":[{"index":0,"gid":"fe80:...","type":"IB/RoCE v1","netdev":null}],
 *                          "counters":{"symbol_error":0,...},"hwCounters":{...},"unreadable":[]}]}]}
 * </pre>
 * {@code activeMtu}/{@code maxMtu} and {@code portQuery} (what {@code ibv_query_port} said) are null without a port
 * query; {@code fix} is null for OK checks.
 */
public final class ReportJson
{
    private ReportJson()
    {
    }

    public static String render(final DoctorReport report)
    {
        final JsonWriter w = new JsonWriter();
        w.beginObject();
        w.field("verdict", report.verdict().name());
        w.field("exitCode", report.exitCode());
        w.name("sections").beginArray();
        for (final ReportSection section : report.sections())
        {
            w.beginObject();
            w.field("title", section.title());
            w.field("status", section.severity().name());
            w.name("checks").beginArray();
            for (final Check c : section.checks())
            {
                w.beginObject();
                w.field("name", c.name());
                w.field("status", c.severity().name());
                w.field("message", c.message());
                w.name("details").beginArray();
                c.details().forEach(w::value);
                w.endArray();
                w.field("fix", c.fix());
                w.endObject();
            }
            w.endArray();
            w.endObject();
        }
        w.endArray();
        w.name("devices").beginArray();
        for (final RdmaDevice d : report.devices())
        {
            w.beginObject();
            w.field("name", d.name());
            w.field("nodeType", d.nodeType().label());
            w.field("firmware", d.firmware());
            w.field("nodeGuid", d.nodeGuid());
            w.field("boardId", d.boardId());
            w.name("ports").beginArray();
            for (final RdmaPort p : d.ports())
            {
                port(w, p, report.portAttributes().get(d.name() + "/" + p.number()));
            }
            w.endArray();
            w.endObject();
        }
        w.endArray();
        w.endObject();
        return w.toString();
    }

    private static void port(final JsonWriter w, final RdmaPort p, final PortAttributes attributes)
    {
        w.beginObject();
        w.field("port", p.number());
        w.field("state", p.state().label());
        w.field("stateCode", p.state().code());
        w.field("physState", p.physState().label());
        w.field("physStateCode", p.physState().code());
        w.field("rate", p.rate());
        w.field("linkLayer", p.linkLayer());
        w.field("lid", p.lid());
        if (attributes == null)
        {
            w.field("activeMtu", null);
            w.field("maxMtu", null);
            w.field("portQuery", null);
        }
        else
        {
            w.field("activeMtu", attributes.activeMtuBytes());
            w.field("maxMtu", attributes.maxMtuBytes());
            w.name("portQuery").beginObject();
            w.field("state", attributes.state());
            w.field("activeMtu", attributes.activeMtuBytes());
            w.field("maxMtu", attributes.maxMtuBytes());
            w.field("width", attributes.width());
            w.field("speed", attributes.speed());
            w.field("linkLayer", attributes.linkLayer());
            w.field("lid", attributes.lid());
            w.endObject();
        }
        w.name("gids").beginArray();
        for (final GidEntry g : p.gids())
        {
            w.beginObject();
            w.field("index", g.index());
            w.field("gid", g.gid());
            w.field("type", g.type());
            w.field("netdev", g.netdev());
            w.endObject();
        }
        w.endArray();
        counters(w, "counters", p.counters());
        counters(w, "hwCounters", p.hwCounters());
        w.name("unreadable").beginArray();
        p.unreadable().forEach(w::value);
        w.endArray();
        w.endObject();
    }

    private static void counters(final JsonWriter w, final String name, final Map<String, Long> counters)
    {
        w.name(name).beginObject();
        counters.forEach(w::field);
        w.endObject();
    }
}
