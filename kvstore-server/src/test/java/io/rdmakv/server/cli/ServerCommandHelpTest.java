package io.rdmakv.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.server.config.ConfigException;
import io.rdmakv.server.config.ServerConfig;
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
    void shouldTakeTheSecretFromTheFlagThenTheFileThenTheEnvironment() throws Exception
    {
        final Path file = tmp.resolve("secret");
        Files.writeString(file, "from-file\n");
        assertEquals("from-flag", ServerCommand.secret("from-flag", file, "from-env"));
        assertEquals("from-file", ServerCommand.secret(null, file, "from-env"));
        assertEquals("from-env", ServerCommand.secret(null, null, "from-env"));
        assertNull(ServerCommand.secret(null, null, null));
        Files.writeString(file, "\n");
        assertThrows(ConfigException.class, () -> ServerCommand.secret(null, file, null));
        assertThrows(ConfigException.class, () -> ServerCommand.secret(null, tmp.resolve("absent"), null));

        final ServerCommand command = new ServerCommand();
        command.environment = name -> name.equals("RDMAKV_SECRET") ? "from-env" : null;
        new CommandLine(command).parseArgs("--data-dir", "/tmp/x");
        assertEquals("from-env", command.overrides().get("auth.secret"));
        Files.writeString(file, "s3cret\n");
        final ServerCommand withFile = new ServerCommand();
        new CommandLine(withFile).parseArgs("--secret-file", file.toString());
        assertTrue(ServerConfig.from(new java.util.Properties(), withFile.overrides()).requiresCredential());
    }
}
