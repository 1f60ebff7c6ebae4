package io.rdmakv.cli;

import java.io.InputStream;
import java.io.PrintStream;

/**
 * The standard streams a command uses, injectable so tests run commands in-process. {@link #out} is a byte stream
 * because {@code get} prints values as raw bytes.
 *
 * @param in  standard input ({@code put KEY -}).
 * @param out standard output.
 * @param err standard error.
 */
public record Io(InputStream in, PrintStream out, PrintStream err)
{
    public static Io system()
    {
        return new Io(System.in, System.out, System.err);
    }
}
