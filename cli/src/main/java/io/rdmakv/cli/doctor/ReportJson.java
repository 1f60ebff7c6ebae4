package io.rdmakv.cli.doctor;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.cli.Json;
import io.rdmakv.transport.device.GidEntry;
import io.rdmakv.transport.device.PortAttributes;
import io.rdmakv.transport.device.RdmaDevice;
import io.rdmakv.transport.device.RdmaPort;

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
 * query; {@code fix} is null for OK checks. Written by Jackson, on one line.
 */
public final class ReportJson
{
    private ReportJson()
    {
    }

    public static String render(final DoctorReport report)
    {
        final ObjectNode root = Json.mapper().createObjectNode();
        root.put("verdict", report.verdict().name());
        root.put("exitCode", report.exitCode());
        final ArrayNode sections = root.putArray("sections");
        for (final ReportSection section : report.sections())
        {
            final ObjectNode s = sections.addObject();
            s.put("title", section.title());
            s.put("status", section.severity().name());
            final ArrayNode checks = s.putArray("checks");
            for (final Check c : section.checks())
            {
                final ObjectNode check = checks.addObject();
                check.put("name", c.name());
                check.put("status", c.severity().name());
                check.put("message", c.message());
                final ArrayNode details = check.putArray("details");
                c.details().forEach(details::add);
                check.put("fix", c.fix());
            }
        }
        final ArrayNode devices = root.putArray("devices");
        for (final RdmaDevice d : report.devices())
        {
            final ObjectNode device = devices.addObject();
            device.put("name", d.name());
            device.put("nodeType", d.nodeType().label());
            device.put("firmware", d.firmware());
            device.put("nodeGuid", d.nodeGuid());
            device.put("boardId", d.boardId());
            final ArrayNode ports = device.putArray("ports");
            for (final RdmaPort p : d.ports())
            {
                port(ports.addObject(), p, report.portAttributes().get(d.name() + "/" + p.number()));
            }
        }
        return Json.line(root);
    }

    private static void port(final ObjectNode o, final RdmaPort p, final PortAttributes attributes)
    {
        o.put("port", p.number());
        o.put("state", p.state().label());
        o.put("stateCode", p.state().code());
        o.put("physState", p.physState().label());
        o.put("physStateCode", p.physState().code());
        o.put("rate", p.rate());
        o.put("linkLayer", p.linkLayer());
        o.put("lid", p.lid());
        if (attributes == null)
        {
            o.putNull("activeMtu");
            o.putNull("maxMtu");
            o.putNull("portQuery");
        }
        else
        {
            o.put("activeMtu", attributes.activeMtuBytes());
            o.put("maxMtu", attributes.maxMtuBytes());
            final ObjectNode query = o.putObject("portQuery");
            query.put("state", attributes.state());
            query.put("activeMtu", attributes.activeMtuBytes());
            query.put("maxMtu", attributes.maxMtuBytes());
            query.put("width", attributes.width());
            query.put("speed", attributes.speed());
            query.put("linkLayer", attributes.linkLayer());
            query.put("lid", attributes.lid());
        }
        final ArrayNode gids = o.putArray("gids");
        for (final GidEntry g : p.gids())
        {
            gids.addObject().put("index", g.index()).put("gid", g.gid()).put("type", g.type())
                .put("netdev", g.netdev());
        }
        counters(o.putObject("counters"), p.counters());
        counters(o.putObject("hwCounters"), p.hwCounters());
        final ArrayNode unreadable = o.putArray("unreadable");
        p.unreadable().forEach(unreadable::add);
    }

    private static void counters(final ObjectNode o, final Map<String, Long> counters)
    {
        counters.forEach(o::put);
    }
}
