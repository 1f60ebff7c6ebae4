package io.rdmakv.server.session;

import java.util.List;

/**
 * What one handshake offered: the transports the client's HELLO named (its preference, best first) and those the
 * node's WELCOME served. Kept with the session ticket, so the node states at the ATTACH which transport the client
 * chose and why, in one line, as the client does in its connect line.
 *
 * @param client the client's transports, best first.
 * @param node   the node's transports, in the WELCOME's order.
 */
public record TransportOffer(List<String> client, List<String> node)
{
    /** A ticket issued outside a handshake (tools, tests). */
    public static final TransportOffer NONE = new TransportOffer(List.of(), List.of());

    public TransportOffer
    {
        client = List.copyOf(client);
        node = List.copyOf(node);
    }

    /**
     * Why a client attached over {@code chosen}, from the node's side.
     *
     * @param chosen    the transport of the endpoint that attached.
     * @param hostLocal whether that transport reaches only this host (then reaching it proved it).
     * @return one phrase for the log line.
     */
    public String explain(final String chosen, final boolean hostLocal)
    {
        final String first = client.stream().filter(node::contains).findFirst().orElse(chosen);
        final StringBuilder why = new StringBuilder();
        if (client.size() == 1)
        {
            why.append("the only transport the client offers");
        }
        else if (first.equals(chosen))
        {
            why.append("the best transport both sides have");
        }
        else
        {
            why.append("the client passed over ").append(first).append(" (a host-local transport needs the same host)");
        }
        why.append(" (client offers ").append(client).append(", node serves ").append(node).append(')');
        if (hostLocal)
        {
            why.append("; same host: the client reached the node's abstract socket in this network namespace and " +
                "presented this node's ticket");
        }
        return why.toString();
    }
}
