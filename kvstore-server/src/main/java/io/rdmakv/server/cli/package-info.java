/**
 * The {@code rdmakv server} command (picocli) and the process entry point that prints the READY line and shuts
 * down gracefully on SIGTERM. Must never be used by the other server packages.
 */
package io.rdmakv.server.cli;
