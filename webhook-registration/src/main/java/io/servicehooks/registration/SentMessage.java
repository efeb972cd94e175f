package io.servicehooks.registration;

/**
 * The direct message the platform accepted ({@link DirectMessages#send}).
 *
 * @param dmConversationId the conversation it went to
 * @param dmEventId the message's id
 */
public record SentMessage(String dmConversationId, String dmEventId) {}
