package io.rdmakv.server.handler;

/**
 * Where the request thread reports how long it spent on one request, by operation. {@link #NONE} when metrics are
 * off, so the handler's cost without metrics is one virtual call.
 */
@FunctionalInterface
public interface RequestTimer
{
    RequestTimer NONE = (operation, nanos) -> { };

    /**
     * @param operation {@link Operation} of the request.
     * @param nanos     time on the request thread from decoding to the answer or hand-off.
     */
    void record(Operation operation, long nanos);

    /** The operations timed, as the {@code op} tag names them. */
    enum Operation
    {
        GET("get"),
        PUT("put"),
        DELETE("delete"),
        STATS("stats");

        private final String tag;

        Operation(final String tag)
        {
            this.tag = tag;
        }

        public String tag()
        {
            return tag;
        }
    }
}
