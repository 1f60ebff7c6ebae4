package io.rdmakv.server.metrics;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whether a node is ready for traffic, as {@code GET /health/ready} answers it: a single node once its store is open
 * and it serves (its start completed, not closing); a cluster node once it also joined the cluster (the committed map
 * lists it) and serves its ranges (none of the ranges it holds is fenced and it holds its lease).
 */
@FunctionalInterface
public interface Readiness
{
    /** Never ready: a node between binding its metrics port and completing its start. */
    Readiness STARTING = () -> State.notReady("starting");

    State state();

    /**
     * @param ready  200 when true, else 503.
     * @param reason why not (empty when ready).
     * @param ranges slot ranges this node holds (as primary or replica); -1 when not known.
     */
    record State(boolean ready, String reason, int ranges)
    {
        /** Thread-safe once configured. */
        private static final ObjectMapper JSON = new ObjectMapper();

        public static State ready(final int ranges)
        {
            return new State(true, "", ranges);
        }

        public static State notReady(final String reason)
        {
            return new State(false, reason, -1);
        }

        /** The short JSON body: {@code {"status":"ready","ranges":2}} or {@code {"status":"not_ready","reason":"..."}}. */
        public String toJson()
        {
            final Map<String, Object> body = new LinkedHashMap<>();
            body.put("status", ready ? "ready" : "not_ready");
            if (!ready)
            {
                body.put("reason", reason);
            }
            if (ranges >= 0)
            {
                body.put("ranges", ranges);
            }
            try
            {
                return JSON.writeValueAsString(body);
            }
            catch (final JsonProcessingException ex)
            {
                throw new IllegalStateException("a map of strings and numbers is always JSON", ex);
            }
        }
    }
}
