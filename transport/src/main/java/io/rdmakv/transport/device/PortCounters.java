package io.rdmakv.transport.device;

import java.util.Locale;
import java.util.Map;

/**
 * Which port counters are errors, and their names as {@code perfquery} prints them. The IB PortCounters in
 * {@code counters/} are standard; {@code hw_counters/} are per driver (mlx5, rxe, ...), so errors there are
 * recognised by name: RNR, retries, timeouts, sequence errors, drops.
 */
public final class PortCounters
{
    /** sysfs name of each IB PortCounters error counter and its perfquery name. */
    public static final Map<String, String> ERROR_COUNTERS = Map.ofEntries(
        Map.entry("symbol_error", "SymbolErrorCounter"),
        Map.entry("link_error_recovery", "LinkErrorRecoveryCounter"),
        Map.entry("link_downed", "LinkDownedCounter"),
        Map.entry("port_rcv_errors", "PortRcvErrors"),
        Map.entry("port_rcv_remote_physical_errors", "PortRcvRemotePhysicalErrors"),
        Map.entry("port_rcv_switch_relay_errors", "PortRcvSwitchRelayErrors"),
        Map.entry("port_xmit_discards", "PortXmitDiscards"),
        Map.entry("port_xmit_constraint_errors", "PortXmitConstraintErrors"),
        Map.entry("port_rcv_constraint_errors", "PortRcvConstraintErrors"),
        Map.entry("local_link_integrity_errors", "LocalLinkIntegrityErrors"),
        Map.entry("excessive_buffer_overrun_errors", "ExcessiveBufferOverrunErrors"),
        Map.entry("VL15_dropped", "VL15Dropped"));

    /** Traffic counters shown for context (data counters count 4-byte words, as in the IB spec). */
    public static final Map<String, String> TRAFFIC_COUNTERS = Map.of(
        "port_xmit_data", "PortXmitData",
        "port_rcv_data", "PortRcvData",
        "port_xmit_packets", "PortXmitPkts",
        "port_rcv_packets", "PortRcvPkts",
        "port_xmit_wait", "PortXmitWait");

    private static final String[] HW_ERROR_WORDS =
        { "err", "rnr", "retry", "timeout", "out_of", "discard", "drop", "duplicate", "link_downed" };

    private PortCounters()
    {
    }

    /** The perfquery-style name of a {@code counters/} file, or the file name itself when not a known one. */
    public static String displayName(final String sysfsName)
    {
        final String e = ERROR_COUNTERS.get(sysfsName);
        if (e != null)
        {
            return e;
        }
        return TRAFFIC_COUNTERS.getOrDefault(sysfsName, sysfsName);
    }

    /** Whether a {@code hw_counters/} entry counts a failure (as opposed to traffic or a setting like lifespan). */
    public static boolean isHwError(final String name)
    {
        final String n = name.toLowerCase(Locale.ROOT);
        for (final String w : HW_ERROR_WORDS)
        {
            if (n.contains(w))
            {
                return true;
            }
        }
        return false;
    }

    /** Whether a hardware counter counts receiver-not-ready events. */
    public static boolean isRnr(final String name)
    {
        return name.toLowerCase(Locale.ROOT).contains("rnr");
    }
}
