/**
 * The {@code rdmakv} launcher: one picocli command with subcommands (server, get, put, del, stats, demo), packaged as
 * the shaded {@code cli/target/rdmakv.jar} that {@code bin/rdmakv} runs. The only module that depends on both the
 * server and the client, so neither of those depends on the other. Nothing else may depend on this package.
 */
package io.rdmakv.cli;
