package io.rdmakv.cli;

/** Exit codes of {@code rdmakv}: stable, for scripts. */
public final class ExitCodes
{
    public static final int OK = 0;
    /** GET or DEL of a key that does not exist. */
    public static final int NOT_FOUND = 1;
    /** Bad command line (picocli's usage error code). */
    public static final int USAGE = 2;
    /** The operation failed: unreachable server, rejection, timeout, server error. */
    public static final int FAILED = 3;

    private ExitCodes()
    {
    }
}
