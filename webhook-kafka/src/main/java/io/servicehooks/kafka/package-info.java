/**
 * Hand-off to Kafka: {@link io.servicehooks.kafka.KafkaHandOff} is an {@link
 * io.servicehooks.core.EventInbox} that answers a delivery 200 only once the brokers acknowledged
 * one record per event, so the listeners can run from the topic in a consumer group.
 */
package io.servicehooks.kafka;
