/**
 * Tests of the Docker image ({@code docker/Dockerfile}) with Testcontainers. They skip, printing the reason, on
 * machines without a reachable Docker engine. Must never depend on server or client internals: the image is driven
 * only through its launcher and its ports; its configuration files are checked with the server's own config loader.
 */
package io.rdmakv.it.docker;
