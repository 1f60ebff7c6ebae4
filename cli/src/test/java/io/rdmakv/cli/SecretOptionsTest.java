package io.rdmakv.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One way to give the shared secret to every command that authenticates: {@code --secret-file FILE} or
 * {@code RDMAKV_SECRET}; no command takes the secret itself as an argument (it would show in {@code ps}).
 */
class SecretOptionsTest
{
    /** Every command that talks to a node with the cluster's credential. */
    private static final Set<String> AUTHENTICATING = Set.of("rdmakv get", "rdmakv put", "rdmakv del",
        "rdmakv stats", "rdmakv bench", "rdmakv backup", "rdmakv restore", "rdmakv cluster status",
        "rdmakv cluster failover", "rdmakv cluster move", "rdmakv cluster finish-move", "rdmakv cluster remove-node",
        "rdmakv cluster rebalance", "rdmakv cluster add-node", "rdmakv cluster add-voter",
        "rdmakv cluster remove-voter", "rdmakv cluster replace-voter", "rdmakv server", "rdmakv scan",
        "rdmakv range", "rdmakv prefix", "rdmakv expire", "rdmakv ttl", "rdmakv incr", "rdmakv mset");

    @TempDir
    Path tmp;

    @Test
    void shouldGiveEveryAuthenticatingCommandTheSecretFileAndNoSecretArgument()
    {
        final Set<String> withFile = new TreeSet<>();
        for (final CommandSpec spec : commands(RdmakvMain.commandLine(Io.system()).getCommandSpec()))
        {
            for (final OptionSpec option : spec.options())
            {
                for (final String name : option.names())
                {
                    assertTrue(!List.of("--secret", "--credential", "--credential-file", "--password", "--pass")
                        .contains(name),
                        spec.qualifiedName() + " takes " + name);
                }
            }
            if (spec.findOption("--secret-file") != null)
            {
                withFile.add(spec.qualifiedName());
            }
        }
        assertEquals(new TreeSet<>(AUTHENTICATING), withFile);
    }

    @Test
    void shouldFindTheSecretByFileThenByEnvironmentInEveryCommand() throws Exception
    {
        final Path file = tmp.resolve("secret");
        Files.writeString(file, "from-file\nsecond line ignored\n");
        int checked = 0;
        for (final String command : AUTHENTICATING)
        {
            if (command.equals("rdmakv server"))
            {
                continue; // the node's own flags: ServerCommandHelpTest
            }
            final String[] path = command.substring("rdmakv ".length()).split(" ");
            final SecretOptions byFile = secretOf(path, "--secret-file", file.toString());
            byFile.environment = Map.of("RDMAKV_SECRET", "from-env")::get;
            assertEquals("from-file", byFile.secret(), command);
            final SecretOptions byEnv = secretOf(path);
            byEnv.environment = Map.of("RDMAKV_SECRET", "from-env")::get;
            assertEquals("from-env", byEnv.secret(), command);
            byEnv.environment = name -> null;
            assertNull(byEnv.secret(), command);
            checked++;
        }
        assertEquals(AUTHENTICATING.size() - 1, checked);
    }

    @Test
    void shouldGiveEveryClientCommandTheUserAndItsPasswordFileTheSameWay() throws Exception
    {
        final Set<String> withUser = new TreeSet<>();
        for (final CommandSpec spec : commands(RdmakvMain.commandLine(Io.system()).getCommandSpec()))
        {
            if (spec.findOption("--user") != null)
            {
                assertNotNull(spec.findOption("--password-file"), spec.qualifiedName());
                withUser.add(spec.qualifiedName());
            }
        }
        final Set<String> clients = new TreeSet<>(AUTHENTICATING);
        clients.remove("rdmakv server"); // a node authenticates to its peers with the shared secret
        assertEquals(clients, withUser);

        final Path file = tmp.resolve("password");
        Files.writeString(file, "pw-from-file\n");
        for (final String command : clients)
        {
            final String[] path = command.substring("rdmakv ".length()).split(" ");
            final SecretOptions byFile = secretOf(path, "--user", "alice", "--password-file", file.toString());
            byFile.environment = Map.of("RDMAKV_PASSWORD", "pw-from-env")::get;
            assertEquals("alice", byFile.login().user(), command);
            assertEquals("pw-from-file", new String(byFile.login().password()), command);
            final SecretOptions byEnv = secretOf(path, "--user", "alice");
            byEnv.environment = Map.of("RDMAKV_PASSWORD", "pw-from-env")::get;
            assertEquals("pw-from-env", new String(byEnv.login().password()), command);
            byEnv.environment = name -> null;
            assertThrows(IllegalArgumentException.class, byEnv::login, command);
            assertNull(secretOf(path).login(), command);
            assertThrows(IllegalArgumentException.class,
                () -> secretOf(path, "--password-file", file.toString()).login(), command);
        }
    }

    @Test
    void shouldRefuseAnEmptyOrMissingFileNamingIt() throws Exception
    {
        final Path empty = Files.writeString(tmp.resolve("empty"), "\n");
        final SecretOptions options = secretOf(new String[] {"stats"}, "--secret-file", empty.toString());
        assertTrue(assertThrows(IllegalArgumentException.class, options::secret).getMessage().contains("empty"));
        final SecretOptions missing = secretOf(new String[] {"stats"}, "--secret-file", tmp.resolve("no").toString());
        assertTrue(assertThrows(IllegalArgumentException.class, missing::secret).getMessage()
            .contains(tmp.resolve("no").toString()));
    }

    /** The secret options of the command at {@code path} after parsing {@code args} (its required options stubbed). */
    private static SecretOptions secretOf(final String[] path, final String... args)
    {
        final CommandLine root = RdmakvMain.commandLine(Io.system());
        CommandLine sub = root;
        for (final String name : path)
        {
            sub = sub.getSubcommands().get(name);
            assertNotNull(sub, String.join(" ", path));
        }
        final CommandSpec spec = sub.getCommandSpec();
        final List<String> all = new ArrayList<>(List.of(path));
        all.addAll(List.of(args));
        // Required options, argument groups and positional parameters: the parser checks them all.
        for (final OptionSpec o : spec.options())
        {
            if (o.required() && o.group() == null)
            {
                all.addAll(List.of(o.longestName(), stub(o)));
            }
        }
        spec.argGroups().stream().filter(g -> g.multiplicity().min() > 0).forEach(g ->
            all.addAll(List.of(g.options().get(0).longestName(), stub(g.options().get(0)))));
        spec.positionalParameters().stream().filter(p -> p.required()).forEach(p -> all.add("x"));
        root.parseArgs(all.toArray(String[]::new));
        return spec.mixins().values().stream().map(CommandSpec::userObject).filter(SecretOptions.class::isInstance)
            .map(SecretOptions.class::cast).findFirst()
            .or(() -> spec.mixins().values().stream().flatMap(m -> m.mixins().values().stream())
                .map(CommandSpec::userObject).filter(SecretOptions.class::isInstance).map(SecretOptions.class::cast)
                .findFirst())
            .orElseThrow(() -> new AssertionError(String.join(" ", path) + " has no SecretOptions"));
    }

    private static String stub(final OptionSpec o)
    {
        return o.type() == int.class || o.type() == Integer.class || o.type() == long.class ? "1" : "x";
    }

    private static List<CommandSpec> commands(final CommandSpec root)
    {
        final List<CommandSpec> all = new ArrayList<>(List.of(root));
        root.subcommands().values().forEach(c -> all.addAll(commands(c.getCommandSpec())));
        return all;
    }
}
