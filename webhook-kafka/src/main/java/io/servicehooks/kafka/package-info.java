/**
 * Kafka between the edge and the listeners: {@link io.servicehooks.kafka.KafkaHandOff} is an {@link
 * io.servicehooks.core.EventInbox} that answers a delivery 200 only once the brokers acknowledged
 * one record per event, and {@link io.servicehooks.kafka.KafkaSource} runs the listeners from that
 * topic in a consumer group, with dedup, offsets committed after the listeners, per-partition
 * order, retries and a dead-letter topic.
 */
package io.servicehooks.kafka;
