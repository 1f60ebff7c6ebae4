package io.rdmakv.it.support;

/**
 * A child-process entry point for testing {@link ServerProcess} itself (not a server): its behaviour is chosen by the
 * system property {@code fixture.mode}: {@code ready} prints a READY line and waits for a signal, {@code silent} never
 * prints READY, {@code fail} writes to stderr and exits 3.
 */
public final class ChildMainFixture
{
    private ChildMainFixture()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final String mode = System.getProperty("fixture.mode", "ready");
        switch (mode)
        {
            case "ready" ->
            {
                System.out.println("starting with " + String.join(" ", args));
                System.out.println("READY control=127.0.0.1:17400 data=127.0.0.1:17401 node=7");
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
            case "silent" -> Thread.sleep(Long.MAX_VALUE);
            default ->
            {
                System.err.println("fixture failure: cannot open data dir");
                System.exit(3);
            }
        }
    }
}
