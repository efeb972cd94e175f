package io.servicehooks.core.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * Every observation servicehooks makes, with its name and key names: the documentation Micrometer's
 * tooling reads, and the one list of names a dashboard or a {@code GlobalObservationConvention} can
 * rely on. The names are stable within a major version.
 *
 * <p>A trace of one event, in each acknowledgement mode:
 *
 * <pre>
 * synchronous, asynchronous:  servicehooks.delivery -&gt; servicehooks.listener (one per listener)
 * durable:                    servicehooks.delivery -&gt; servicehooks.inbox.store
 *                               ... later, on an inbox worker, continued from the row's traceparent:
 *                             servicehooks.inbox.process -&gt; servicehooks.listener
 * activity stream:            servicehooks.stream.event -&gt; servicehooks.delivery -&gt; ...
 * </pre>
 */
public enum ServicehooksObservation implements ObservationDocumentation {

  /**
   * One delivery, from the moment the core has its bytes to its answer: a signed POST, or a line of
   * the activity stream. CRC checks, bodies refused before they are read (too large, unreadable)
   * and deliveries refused while the consumer closes are not observed (the {@code webhook.crc} and
   * {@code webhook.deliveries} meters count them).
   */
  DELIVERY {
    @Override
    public String getName() {
      return "servicehooks.delivery";
    }

    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>>
        getDefaultConvention() {
      return DefaultDeliveryObservationConvention.class;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
      return new KeyName[] {
        LowCardinalityKeys.OUTCOME,
        LowCardinalityKeys.ACKNOWLEDGEMENT,
        LowCardinalityKeys.EVENT_TYPE,
        LowCardinalityKeys.SOURCE
      };
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
      return new KeyName[] {HighCardinalityKeys.EVENT_COUNT};
    }
  },

  /** One listener run for one event; its scope is open while the listener runs. */
  LISTENER {
    @Override
    public String getName() {
      return "servicehooks.listener";
    }

    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>>
        getDefaultConvention() {
      return DefaultListenerObservationConvention.class;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
      return new KeyName[] {
        LowCardinalityKeys.OUTCOME, LowCardinalityKeys.EVENT_TYPE, LowCardinalityKeys.LISTENER
      };
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
      return new KeyName[] {HighCardinalityKeys.EVENT_ID};
    }
  },

  /**
   * Durable mode: one delivery's events written to the inbox (a producer span). Its trace context
   * is written with each row as a W3C {@code traceparent}.
   */
  INBOX_STORE {
    @Override
    public String getName() {
      return "servicehooks.inbox.store";
    }

    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>>
        getDefaultConvention() {
      return DefaultInboxStoreObservationConvention.class;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
      return new KeyName[] {LowCardinalityKeys.OUTCOME, LowCardinalityKeys.EVENT_TYPE};
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
      return new KeyName[] {HighCardinalityKeys.EVENT_COUNT};
    }
  },

  /**
   * Durable mode: one stored event taken by an inbox worker and run through its listeners (a
   * consumer span), continuing the trace of the row's {@code traceparent}; a row without one
   * (stored before tracing, or by a consumer without a registry) starts a trace of its own.
   */
  INBOX_PROCESS {
    @Override
    public String getName() {
      return "servicehooks.inbox.process";
    }

    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>>
        getDefaultConvention() {
      return DefaultInboxProcessObservationConvention.class;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
      return new KeyName[] {LowCardinalityKeys.OUTCOME, LowCardinalityKeys.EVENT_TYPE};
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
      return new KeyName[] {HighCardinalityKeys.EVENT_ID};
    }
  },

  /**
   * One line of the activity stream handed to the consumer ({@code webhook-stream}); the delivery
   * it becomes is its child.
   */
  STREAM_EVENT {
    @Override
    public String getName() {
      return "servicehooks.stream.event";
    }

    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>>
        getDefaultConvention() {
      return DefaultStreamEventObservationConvention.class;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
      return new KeyName[] {LowCardinalityKeys.OUTCOME};
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
      return new KeyName[] {HighCardinalityKeys.CONNECTION};
    }
  };

  /** Key names whose values come from small fixed sets: safe as meter tags. */
  public enum LowCardinalityKeys implements KeyName {
    /**
     * How it ended. A delivery: {@code accepted}, {@code duplicate}, or the error code of its
     * answer ({@code invalid_signature}, {@code malformed_payload}, {@code busy}, {@code
     * in_flight}, {@code dedup_unavailable}, {@code inbox_unavailable}, {@code listener_failed},
     * {@code internal_error}). A listener or an inbox processing: {@code success} or {@code
     * failure}. An inbox store: {@code stored}, {@code duplicate} (every event stored before) or
     * {@code failure}. A stream event: {@code taken}, {@code refused} (4xx), {@code failed} (500)
     * or {@code not_taken} (503, asked for again).
     */
    OUTCOME {
      @Override
      public String asString() {
        return "servicehooks.outcome";
      }
    },
    /**
     * The consumer's acknowledgement mode: {@code synchronous}, {@code asynchronous}, {@code
     * durable}.
     */
    ACKNOWLEDGEMENT {
      @Override
      public String asString() {
        return "servicehooks.acknowledgement";
      }
    },
    /**
     * The current event type, capped like the {@code webhook.events} meter's {@code type} tag; a
     * delivery of several types reads {@code mixed}, one refused before it was parsed {@code none}.
     */
    EVENT_TYPE {
      @Override
      public String asString() {
        return "servicehooks.event.type";
      }
    },
    /** Where a delivery came from: {@code webhook} (a signed POST) or {@code stream}. */
    SOURCE {
      @Override
      public String asString() {
        return "servicehooks.source";
      }
    },
    /**
     * The pattern the listener was registered under ({@code post.create}, {@code dm.*}, {@code *}):
     * as many values as the code registers.
     */
    LISTENER {
      @Override
      public String asString() {
        return "servicehooks.listener";
      }
    }
  }

  /** Key names with many values: on spans only, never meter tags. */
  public enum HighCardinalityKeys implements KeyName {
    /** The event's id (see {@code WebhookEvent.id()}). */
    EVENT_ID {
      @Override
      public String asString() {
        return "servicehooks.event.id";
      }
    },
    /** How many events the delivery (or the inbox write) carried. */
    EVENT_COUNT {
      @Override
      public String asString() {
        return "servicehooks.event.count";
      }
    },
    /** The stream connection's number, counted from 1 since the stream started. */
    CONNECTION {
      @Override
      public String asString() {
        return "servicehooks.stream.connection";
      }
    }
  }
}
