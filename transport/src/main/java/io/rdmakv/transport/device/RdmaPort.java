package io.rdmakv.transport.device;

import java.util.List;
import java.util.Map;

/**
 * One port of an RDMA device as sysfs shows it ({@code /sys/class/infiniband/<dev>/ports/<n>/}).
 *
 * @param number      the port number (from 1).
 * @param state       {@code state}, e.g. {@code 4: ACTIVE}.
 * @param physState   {@code phys_state}, e.g. {@code 5: LinkUp}.
 * @param rate        {@code rate}, e.g. {@code 100 Gb/sec (4X EDR)}; {@code null} when unreadable.
 * @param linkLayer   {@code link_layer}: {@code InfiniBand} or {@code Ethernet}; {@code null} when unreadable.
 * @param lid         {@code lid} (hex in sysfs), or -1 when unreadable; 0 on RoCE.
 * @param gids        the non-empty GID table entries, by index.
 * @param counters    {@code counters/*} (the IB PortCounters: {@code symbol_error}, {@code port_rcv_errors}, ...).
 * @param hwCounters  {@code hw_counters/*} (driver-specific: RNR, retries, sequence errors, ...).
 * @param unreadable  counter files that exist but could not be read or parsed, as {@code dir/name}.
 */
public record RdmaPort(
    int number,
    CodedState state,
    CodedState physState,
    String rate,
    String linkLayer,
    int lid,
    List<GidEntry> gids,
    Map<String, Long> counters,
    Map<String, Long> hwCounters,
    List<String> unreadable)
{
    public RdmaPort
    {
        gids = List.copyOf(gids);
        counters = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(counters));
        hwCounters = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(hwCounters));
        unreadable = List.copyOf(unreadable);
    }

    public boolean isActive()
    {
        return state.code() == CodedState.PORT_ACTIVE;
    }

    /** RoCE (Ethernet link layer) rather than native InfiniBand. */
    public boolean isEthernet()
    {
        return linkLayer != null && linkLayer.equalsIgnoreCase("Ethernet");
    }
}
