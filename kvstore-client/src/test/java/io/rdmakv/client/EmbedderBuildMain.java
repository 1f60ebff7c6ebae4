package io.rdmakv.client;

/** A child JVM's main for {@link EmbedderJvmFlagTest}: build a client as an embedding service would; print how it ended. */
public final class EmbedderBuildMain
{
    private EmbedderBuildMain()
    {
    }

    public static void main(final String[] args)
    {
        try (KvClient client = KvClient.builder().server(args[0]).transport("tcp")
            .connectTimeout(java.time.Duration.ofSeconds(5)).build())
        {
            System.out.println("BUILT " + client.diagnostics().transport());
        }
        catch (final Throwable t)
        {
            System.out.println("FAILED " + t.getClass().getName() + ": " + t.getMessage());
        }
    }
}
