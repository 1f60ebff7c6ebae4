package io.rdmakv.cli;

/** Exit codes of {@code rdmakv}: stable, for scripts. */
public final class ExitCodes
{
    public static final int OK = 0;
    /** GET or DEL of a key that does not exist. */
    public static final int NOT_FOUND = 1;
    /** Bad command line (picocli's usage error code). */
    public static final int USAGE = 2;
    /** The operation failed: unreachable server or node, rejection, timeout, server error. */
    public static final int FAILED = 3;
    /** A conditional write's condition did not hold ({@code --if-absent}, {@code --if-version}): nothing written. */
    public static final int CONDITION_FAILED = 3;
    /**
     * The cluster refused the credential (wrong or missing {@code --secret-file} / {@code RDMAKV_SECRET}, {@code --user}
     * with {@code --password-file} / {@code RDMAKV_PASSWORD}), or the user's role or key prefixes do not allow the
     * operation.
     */
    public static final int UNAUTHENTICATED = 4;

    /** The code for a failed operation: {@link #UNAUTHENTICATED} when the node refused the credential. */
    public static int of(final io.rdmakv.client.KvException failure)
    {
        return failure instanceof io.rdmakv.client.KvAuthenticationException ||
            failure.error() == io.rdmakv.client.KvError.FORBIDDEN ? UNAUTHENTICATED : FAILED;
    }

    private ExitCodes()
    {
    }
}
