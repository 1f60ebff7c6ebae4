package io.rdmakv.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.server.config.ConfigException;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.config.SettingCatalog;
import io.rdmakv.server.config.SettingsReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code rdmakv server} tells an operator: the ports as they are, every setting from the code (and
 * {@code docs/settings.md} equal to it), and a secret that need not appear in {@code ps}.
 */
class ServerCommandHelpTest
{
    @TempDir
    Path tmp;

    @Test
    void shouldSayClientsDialThePortAndTheDataPlaneIsOnDataPort()
    {
        final String help = new CommandLine(new ServerCommand()).getUsageMessage();
        assertTrue(help.contains("Clients dial --port, the control plane"), help);
        assertTrue(help.contains("the data plane is on --data-port"), help);
        assertFalse(help.contains("data plane on --port"), help);
        assertTrue(help.contains("--secret-file=FILE"), help);
        assertTrue(help.contains("RDMAKV_SECRET"), help);
        assertTrue(help.contains("Exit codes:"), help);
    }

    @Test
    void shouldListEverySettingWithItsDefaultAndMeaning()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ServerCommand command = new ServerCommand(new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, new CommandLine(command).execute("--list-settings"));
        final String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(ServerConfig.KNOWN.keySet(), SettingsReference.MEANINGS.keySet(), "one meaning per setting");
        for (final String name : ServerConfig.KNOWN.keySet())
        {
            assertTrue(text.contains(name + " "), name + " missing from " + text);
        }
        assertTrue(text.contains("metrics.port"), text);
        assertTrue(text.contains("1.5GiB = 1610612736"), text);
    }

    @Test
    void shouldListEverySettingAsJsonAndRefuseAnUnknownFormat() throws Exception
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final ServerCommand command = new ServerCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, new CommandLine(command).execute("--list-settings=json"));
        final JsonNode root = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
        final List<String> names = new ArrayList<>();
        for (final JsonNode setting : root.get("settings"))
        {
            final String name = setting.get("name").asText();
            names.add(name);
            assertEquals(SettingsReference.MEANINGS.get(name), setting.get("meaning").asText(), name);
            assertEquals(SettingCatalog.find(name).type(), setting.get("type").asText(), name);
            assertEquals(SettingCatalog.find(name).allowed(), setting.get("allowed").asText(), name);
            final String def = ServerConfig.KNOWN.get(name);
            assertEquals(def == null, setting.get("default").isNull(), setting.toString());
            if (def != null)
            {
                assertEquals(def, setting.get("default").asText(), setting.toString());
            }
        }
        assertEquals(List.copyOf(ServerConfig.KNOWN.keySet()), names, "every setting, in the code's order");
        assertEquals("tcp.*", root.get("passThrough").get(0).asText());
        assertTrue(root.get("sizes").asText().contains("1.5GiB = 1610612736"), root.toString());

        out.reset();
        final ServerCommand yaml = new ServerCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, new CommandLine(yaml).execute("--list-settings=yaml"));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("text, json or markdown, not 'yaml'"), err.toString());
    }

    @Test
    void shouldKeepTheSettingsPageEqualToTheCode() throws Exception
    {
        final Path page = Path.of(System.getProperty("basedir", "."), "..", "docs", "settings.md");
        assertEquals(SettingsReference.markdown(), Files.readString(page, StandardCharsets.UTF_8),
            "docs/settings.md drifted from the code: regenerate it with " +
                "'bin/rdmakv server --list-settings=markdown > docs/settings.md'");
    }

    @Test
    void shouldTakeTheSecretFromTheFileThenTheEnvironmentNeverAnArgument() throws Exception
    {
        final Path file = tmp.resolve("secret");
        Files.writeString(file, "from-file\n");
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

        final ServerCommand byEnv = new ServerCommand();
        byEnv.environment = name -> name.equals("RDMAKV_SECRET") ? "from-env" : null;
        new CommandLine(byEnv).parseArgs("--data-dir", "/tmp/x");
        assertArrayEquals(b("from-env"), ServerConfig.from(new java.util.Properties(), byEnv.overrides()).secret());

        final ServerCommand byFile = new ServerCommand();
        byFile.environment = byEnv.environment;
        new CommandLine(byFile).parseArgs("--secret-file", file.toString());
        assertNull(byFile.overrides().get("auth.secret"), "the file wins over the environment");
        assertArrayEquals(b("from-file"), ServerConfig.from(new java.util.Properties(), byFile.overrides()).secret());

        final ServerCommand bySetting = new ServerCommand();
        bySetting.environment = byEnv.environment;
        new CommandLine(bySetting).parseArgs("-S", "auth.secretFile=" + file);
        assertArrayEquals(b("from-file"),
            ServerConfig.from(new java.util.Properties(), bySetting.overrides()).secret());

        final ServerCommand none = new ServerCommand();
        none.environment = name -> null;
        new CommandLine(none).parseArgs();
        assertFalse(ServerConfig.from(new java.util.Properties(), none.overrides()).security().requiresCredential());

        assertThrows(CommandLine.UnmatchedArgumentException.class,
            () -> new CommandLine(new ServerCommand()).parseArgs("--secret", "s"), "no flag takes the secret itself");
        final java.util.Map<String, String> both = java.util.Map.of("auth.secret", "a", "auth.secretFile",
            file.toString());
        assertTrue(assertThrows(ConfigException.class, () -> ServerConfig.from(new java.util.Properties(), both))
            .getMessage().contains("keep one"));
        Files.writeString(file, "\n");
        assertThrows(ConfigException.class, () -> ServerConfig.from(new java.util.Properties(), byFile.overrides()));
        final java.util.Map<String, String> absent = java.util.Map.of("auth.secretFile", tmp.resolve("no").toString());
        assertThrows(ConfigException.class, () -> ServerConfig.from(new java.util.Properties(), absent));
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
