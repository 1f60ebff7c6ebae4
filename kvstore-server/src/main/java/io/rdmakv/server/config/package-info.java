/**
 * Server settings: each declared once as a {@link io.rdmakv.server.config.Setting} (name, type, default, bounds,
 * meaning) in a topic catalogue, all listed by {@link io.rdmakv.server.config.SettingCatalog}; a properties file
 * overridden by command-line flags, validated once at start-up into an immutable
 * {@link io.rdmakv.server.config.ServerConfig}; and the static cluster map entries.
 * Must never depend on: the transport, the memory pool, the protocol, Netty or the request handlers.
 */
package io.rdmakv.server.config;
