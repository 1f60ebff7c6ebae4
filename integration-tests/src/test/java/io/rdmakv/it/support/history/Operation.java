package io.rdmakv.it.support.history;

/**
 * One operation of a recorded history on a register per key: who invoked it, when (monotonic nanoseconds), what it
 * asked and how it ended.
 *
 * <p>{@code value} is the value written (PUT), the value read (GET; null when the key was absent), or for a DELETE its
 * answer when it was recorded: {@link #DELETE_FOUND} (the key was there and is deleted), {@link #DELETE_ABSENT} (the
 * key was absent), null (not recorded, or no answer). A DELETE's answer constrains the register as a GET's value does:
 * a retried DELETE answered "absent" where its first attempt deleted the key is not linearizable.
 * A {@link Outcome#FAIL} operation surely did not take effect; a {@link Outcome#TIMEOUT} one (or one still pending
 * when the history was taken) may or may not have, at any moment after its invocation, so its completion time is
 * {@link Long#MAX_VALUE}.
 *
 * @param id            position in the recorder, unique within a history.
 * @param process       the client thread (or logical process) that invoked it.
 * @param kind          PUT, GET or DELETE.
 * @param key           the register.
 * @param value         see above.
 * @param outcome       how it ended.
 * @param invokeNanos   monotonic time of the invocation.
 * @param completeNanos monotonic time of the answer; {@link Long#MAX_VALUE} unless {@link Outcome#OK} or FAIL.
 */
public record Operation(int id, int process, Kind kind, String key, String value, Outcome outcome, long invokeNanos,
    long completeNanos)
{
    /** A DELETE's {@code value} when it answered that it deleted the key. */
    public static final String DELETE_FOUND = "<deleted: found>";
    /** A DELETE's {@code value} when it answered that the key was absent. */
    public static final String DELETE_ABSENT = "<deleted: absent>";

    /** What the operation does to its register. */
    public enum Kind
    {
        PUT, GET, DELETE
    }

    /** How the operation ended, as the client saw it. */
    public enum Outcome
    {
        /** Acknowledged (a GET's value is what it read). */
        OK,
        /** Surely not applied (refused before it could take effect). */
        FAIL,
        /** No answer: it may or may not have taken effect. */
        TIMEOUT
    }

    public Operation
    {
        if (outcome != Outcome.OK && outcome != Outcome.FAIL && completeNanos != Long.MAX_VALUE)
        {
            throw new IllegalArgumentException("a timed-out operation has no completion time: " + completeNanos);
        }
        if (completeNanos < invokeNanos)
        {
            throw new IllegalArgumentException("operation " + id + " completes (" + completeNanos + ") before it is invoked ("
                + invokeNanos + ")");
        }
    }

    /** True for PUT and DELETE. */
    public boolean isWrite()
    {
        return kind != Kind.GET;
    }

    /**
     * Whether the register may hold {@code state} just before this operation takes effect: a GET must read it, an
     * answered DELETE must find the key present ({@link #DELETE_FOUND}) or absent ({@link #DELETE_ABSENT}); a PUT and
     * a DELETE without a recorded answer fit any state.
     */
    public boolean fits(final String state)
    {
        return switch (kind)
        {
            case GET -> java.util.Objects.equals(state, value);
            case PUT -> true;
            case DELETE -> value == null || (state != null) == DELETE_FOUND.equals(value);
        };
    }

    /** The register's value once this write took effect (null after a DELETE). */
    public String writtenValue()
    {
        return kind == Kind.PUT ? value : null;
    }

    @Override
    public String toString()
    {
        final String what = switch (kind)
        {
            case PUT -> "put(" + key + ", " + value + ")";
            case GET -> "get(" + key + ")" + (outcome == Outcome.OK ? " -> " + value : "");
            case DELETE -> "delete(" + key + ")" + (outcome == Outcome.OK && value != null ? " -> " + value : "");
        };
        final String end = outcome == Outcome.OK ? "ok @" + completeNanos
            : outcome == Outcome.FAIL ? "fail @" + completeNanos : "timeout";
        return "#" + id + " p" + process + " " + what + " [invoke @" + invokeNanos + ", " + end + "]";
    }
}
