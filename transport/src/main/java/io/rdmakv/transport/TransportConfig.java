package io.rdmakv.transport;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Settings for opening a transport: a few common ones as typed fields, and transport-specific ones as
 * {@code name=value} properties under the transport's prefix (e.g. {@code verbs.device}, {@code verbs.gidIndex},
 * {@code tcp.nativeEpoll}). Immutable; build with {@link #builder()}.
 */
public final class TransportConfig
{
    private final int maxInflightPerEndpoint;
    private final int maxPendingPerEndpoint;
    private final int maxMessageBytes;
    private final int endpointSlots;
    private final Duration connectTimeout;
    private final Duration operationTimeout;
    private final Map<String, String> properties;

    private TransportConfig(final Builder b)
    {
        this.maxInflightPerEndpoint = b.maxInflightPerEndpoint;
        this.maxPendingPerEndpoint = b.maxPendingPerEndpoint;
        this.maxMessageBytes = b.maxMessageBytes;
        this.endpointSlots = b.endpointSlots;
        this.connectTimeout = b.connectTimeout;
        this.operationTimeout = b.operationTimeout;
        this.properties = Map.copyOf(b.properties);
    }

    public static Builder builder()
    {
        return new Builder();
    }

    public static TransportConfig defaults()
    {
        return builder().build();
    }

    /** Operations one endpoint keeps in flight (credits; on verbs bounded by the queue depth). */
    public int maxInflightPerEndpoint()
    {
        return maxInflightPerEndpoint;
    }

    /** Operations that may wait behind the credits before calls return {@link TransportStatus#BACK_PRESSURED}. */
    public int maxPendingPerEndpoint()
    {
        return maxPendingPerEndpoint;
    }

    /** Largest message {@link Endpoint#send} accepts. */
    public int maxMessageBytes()
    {
        return maxMessageBytes;
    }

    /**
     * Endpoints one worker holds at once, on a transport with {@link TransportCapability#ENDPOINT_SLOTS} (each slot
     * pins that endpoint's buffers when the worker is created); 0 leaves it to the transport's own default. A
     * transport-specific property for the same thing (e.g. {@code verbs.maxEndpoints}) wins over it.
     *
     * @return the slots asked for, or 0.
     */
    public int endpointSlots()
    {
        return endpointSlots;
    }

    public Duration connectTimeout()
    {
        return connectTimeout;
    }

    /** An operation not completed within this time completes with {@link TransportStatus#TIMED_OUT}. */
    public Duration operationTimeout()
    {
        return operationTimeout;
    }

    public String property(final String name, final String defaultValue)
    {
        return properties.getOrDefault(name, defaultValue);
    }

    public int intProperty(final String name, final int defaultValue)
    {
        final String v = properties.get(name);
        return v == null ? defaultValue : Integer.parseInt(v.trim());
    }

    public boolean booleanProperty(final String name, final boolean defaultValue)
    {
        final String v = properties.get(name);
        return v == null ? defaultValue : Boolean.parseBoolean(v.trim());
    }

    public Map<String, String> properties()
    {
        return properties;
    }

    public Builder toBuilder()
    {
        final Builder b = new Builder();
        b.maxInflightPerEndpoint = maxInflightPerEndpoint;
        b.maxPendingPerEndpoint = maxPendingPerEndpoint;
        b.maxMessageBytes = maxMessageBytes;
        b.endpointSlots = endpointSlots;
        b.connectTimeout = connectTimeout;
        b.operationTimeout = operationTimeout;
        b.properties.putAll(properties);
        return b;
    }

    @Override
    public String toString()
    {
        return "TransportConfig{inflight=" + maxInflightPerEndpoint + ", pending=" + maxPendingPerEndpoint +
            ", maxMessage=" + maxMessageBytes + ", endpointSlots=" + endpointSlots + ", connectTimeout=" + connectTimeout +
            ", operationTimeout=" + operationTimeout + ", properties=" + new TreeMap<>(properties) + '}';
    }

    public static final class Builder
    {
        private int maxInflightPerEndpoint = 128;
        private int maxPendingPerEndpoint = 16_384;
        private int maxMessageBytes = (1 << 20) + 4096;
        private int endpointSlots;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration operationTimeout = Duration.ofSeconds(10);
        private final Map<String, String> properties = new TreeMap<>();

        public Builder maxInflightPerEndpoint(final int value)
        {
            this.maxInflightPerEndpoint = requirePositive(value, "maxInflightPerEndpoint");
            return this;
        }

        public Builder maxPendingPerEndpoint(final int value)
        {
            this.maxPendingPerEndpoint = requirePositive(value, "maxPendingPerEndpoint");
            return this;
        }

        public Builder maxMessageBytes(final int value)
        {
            this.maxMessageBytes = requirePositive(value, "maxMessageBytes");
            return this;
        }

        /**
         * Endpoints one worker holds at once; see {@link TransportConfig#endpointSlots()}.
         *
         * @param value at least 1, or 0 for the transport's default.
         * @return this builder.
         */
        public Builder endpointSlots(final int value)
        {
            if (value < 0)
            {
                throw new IllegalArgumentException("endpointSlots must be 0 (the transport's default) or positive: " +
                    value);
            }
            this.endpointSlots = value;
            return this;
        }

        public Builder connectTimeout(final Duration value)
        {
            this.connectTimeout = value;
            return this;
        }

        public Builder operationTimeout(final Duration value)
        {
            this.operationTimeout = value;
            return this;
        }

        public Builder property(final String name, final String value)
        {
            properties.put(name, value);
            return this;
        }

        public TransportConfig build()
        {
            return new TransportConfig(this);
        }

        private static int requirePositive(final int value, final String name)
        {
            if (value <= 0)
            {
                throw new IllegalArgumentException(name + " must be positive: " + value);
            }
            return value;
        }
    }
}
