package io.servicehooks.spring;

import io.servicehooks.core.TypedEventListener;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookListener;
import io.servicehooks.registration.Answering;
import io.servicehooks.registration.Say;
import java.util.function.Function;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The {@code Say} parameter of an {@link OnWebhookEvent} method: the answering handle of the
 * application's {@link Answering} bean. Loaded only when a method has such a parameter, so the
 * adapter runs without webhook-registration on the class path.
 */
final class AnsweringMethods {

  private AnsweringMethods() {}

  /**
   * Calls an annotated method with the event's argument and a {@link Say}, typed {@code Object}
   * here so that {@link ListenerMethods} never names webhook-registration's classes.
   */
  @FunctionalInterface
  interface Call {
    void call(Object argument, Object say) throws Exception;
  }

  /**
   * A listener that runs {@code call} with the argument {@code argument} makes of each event and a
   * {@link Say} from the application's {@link Answering} bean.
   *
   * @throws IllegalStateException when the application has no {@link Answering} (the message names
   *     the method and what to set)
   */
  static WebhookListener listener(
      ConfigurableListableBeanFactory beanFactory,
      String description,
      Function<WebhookEvent, Object> argument,
      Call call) {
    Answering answering = beanFactory.getBeanProvider(Answering.class).getIfAvailable();
    if (answering == null) {
      throw new IllegalStateException(
          "Invalid @OnWebhookEvent method "
              + description
              + ": it takes a Say, which needs servicehooks.registration.base-url and the app's"
              + " SERVICE_API_KEY and SERVICE_API_SECRET in the environment (or an Answering"
              + " bean)");
    }
    TypedEventListener<Object> typed =
        answering.listener(Object.class, (event, payload, say) -> call.call(payload, say));
    return event -> typed.onEvent(event, argument.apply(event));
  }
}
