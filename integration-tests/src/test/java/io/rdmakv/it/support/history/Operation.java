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
 * <p>The conditional writes and the counter (issue 32) are checked on values, not on data versions: every write of a
 * key writes a value no other write does, so a data version names exactly one value, and a condition on a version is
 * a condition on that value (the one the client read with the version, or wrote and got the version for).
 * {@link Kind#PUT_IF_ABSENT} holds when the register is absent; {@link Kind#REPLACE} and {@link Kind#DELETE_IF} when it
 * holds {@code expected}; {@code applied} is the answer (true applied, false refused, null none: a timed-out one may
 * have applied, and then only where its condition held). {@link Kind#INCREMENT} adds {@code expected} (the delta, in
 * decimal) to the decimal value (absent: 0), and {@code value} is the new value it answered (null: none).
 *
 * @param id            position in the recorder, unique within a history.
 * @param process       the client thread (or logical process) that invoked it.
 * @param kind          PUT, GET or DELETE.
 * @param key           the register.
 * @param value         see above.
 * @param outcome       how it ended.
 * @param invokeNanos   monotonic time of the invocation.
 * @param completeNanos monotonic time of the answer; {@link Long#MAX_VALUE} unless {@link Outcome#OK} or FAIL.
 * @param expected      REPLACE and DELETE_IF: the value the condition expects; INCREMENT: the delta; else null.
 * @param applied       a conditional write's answer (null: none, or not a conditional write).
 */
public record Operation(int id, int process, Kind kind, String key, String value, Outcome outcome, long invokeNanos,
    long completeNanos, String expected, Boolean applied)
{
    /** A DELETE's {@code value} when it answered that it deleted the key. */
    public static final String DELETE_FOUND = "<deleted: found>";
    /** A DELETE's {@code value} when it answered that the key was absent. */
    public static final String DELETE_ABSENT = "<deleted: absent>";

    /** What the operation does to its register. */
    public enum Kind
    {
        PUT, GET, DELETE, PUT_IF_ABSENT, REPLACE, DELETE_IF, INCREMENT;

        /** The conditional writes and the counter: what they do depends on the register's value. */
        public boolean decides()
        {
            return this == PUT_IF_ABSENT || this == REPLACE || this == DELETE_IF || this == INCREMENT;
        }
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

    /** A PUT, GET or DELETE. */
    public Operation(final int id, final int process, final Kind kind, final String key, final String value,
        final Outcome outcome, final long invokeNanos, final long completeNanos)
    {
        this(id, process, kind, key, value, outcome, invokeNanos, completeNanos, null, null);
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
     * a DELETE without a recorded answer fit any state. A conditional write fits where its condition held if it was
     * applied, where it did not if refused, and (no answer) where it held: placed elsewhere it changed nothing, as if
     * never placed. An increment fits a decimal value (or absent) that its delta takes to the value it answered.
     */
    public boolean fits(final String state)
    {
        return switch (kind)
        {
            case GET -> java.util.Objects.equals(state, value);
            case PUT -> true;
            case DELETE -> value == null || (state != null) == DELETE_FOUND.equals(value);
            case PUT_IF_ABSENT -> (state == null) == (applied == null || applied);
            case REPLACE, DELETE_IF -> java.util.Objects.equals(state, expected) == (applied == null || applied);
            case INCREMENT ->
            {
                final Long current = counterValue(state);
                yield current != null && (value == null || Long.parseLong(value) == current + Long.parseLong(expected));
            }
        };
    }

    /** The register's value once this operation took effect from {@code state} (null: absent). */
    public String apply(final String state)
    {
        return switch (kind)
        {
            case GET -> state;
            case PUT -> value;
            case DELETE -> null;
            case PUT_IF_ABSENT, REPLACE -> Boolean.FALSE.equals(applied) ? state : value;
            case DELETE_IF -> Boolean.FALSE.equals(applied) ? state : null;
            case INCREMENT -> Long.toString(counterValue(state) + Long.parseLong(expected));
        };
    }

    /**
     * The value a write leaves where it applies, as far as it is known without the state (null after a DELETE, and
     * for an increment without an answer): what a read of it would return.
     */
    public String writtenValue()
    {
        return switch (kind)
        {
            case PUT, PUT_IF_ABSENT, REPLACE, INCREMENT -> value;
            case GET, DELETE, DELETE_IF -> null;
        };
    }

    /** A counter's value: absent counts 0; null when the value is not a decimal int64. */
    private static Long counterValue(final String state)
    {
        if (state == null)
        {
            return 0L;
        }
        try
        {
            return Long.parseLong(state);
        }
        catch (final NumberFormatException ex)
        {
            return null;
        }
    }

    @Override
    public String toString()
    {
        final String answer = applied == null ? "" : applied ? " -> applied" : " -> refused";
        final String what = switch (kind)
        {
            case PUT -> "put(" + key + ", " + value + ")";
            case GET -> "get(" + key + ")" + (outcome == Outcome.OK ? " -> " + value : "");
            case DELETE -> "delete(" + key + ")" + (outcome == Outcome.OK && value != null ? " -> " + value : "");
            case PUT_IF_ABSENT -> "putIfAbsent(" + key + ", " + value + ")" + answer;
            case REPLACE -> "replace(" + key + ", " + expected + " -> " + value + ")" + answer;
            case DELETE_IF -> "deleteIf(" + key + ", " + expected + ")" + answer;
            case INCREMENT -> "increment(" + key + ", " + expected + ")" + (value != null ? " -> " + value : "");
        };
        final String end = outcome == Outcome.OK ? "ok @" + completeNanos
            : outcome == Outcome.FAIL ? "fail @" + completeNanos : "timeout";
        return "#" + id + " p" + process + " " + what + " [invoke @" + invokeNanos + ", " + end + "]";
    }
}
