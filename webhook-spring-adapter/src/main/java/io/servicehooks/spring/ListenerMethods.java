package io.servicehooks.spring;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.WebhookListener;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@link OnWebhookEvent}-annotated methods of the singleton beans and adds each to a
 * consumer builder as a core listener. Signatures are checked before any bean is created, and a
 * method that does not fit stops the start-up with a message that names it.
 */
final class ListenerMethods {

  private ListenerMethods() {}

  /** Adds every annotated method of every singleton bean to {@code builder}. */
  static void register(
      ConfigurableListableBeanFactory beanFactory, WebhookConsumer.Builder builder) {
    // A method that takes a Say gets the application's Answering bean, asked for only then.
    for (String name : beanFactory.getBeanNamesForType(Object.class, false, false)) {
      Map<Method, OnWebhookEvent> methods = annotatedMethods(beanFactory, name);
      if (methods.isEmpty()) {
        continue;
      }
      methods.keySet().forEach(ListenerMethods::check);
      Object bean = beanFactory.getBean(name);
      methods.forEach((method, annotation) -> add(beanFactory, builder, bean, method, annotation));
    }
  }

  /** The annotated methods of the singleton beans, described; no bean is created for it. */
  static List<String> find(ConfigurableListableBeanFactory beanFactory) {
    List<String> found = new ArrayList<>();
    for (String name : beanFactory.getBeanNamesForType(Object.class, false, false)) {
      annotatedMethods(beanFactory, name).keySet().forEach(method -> found.add(describe(method)));
    }
    return found;
  }

  private static Map<Method, OnWebhookEvent> annotatedMethods(
      ConfigurableListableBeanFactory beanFactory, String name) {
    if (ScopedProxyUtils.isScopedTarget(name)) {
      return Map.of();
    }
    Class<?> type = targetType(beanFactory, name);
    if (type == null || !AnnotationUtils.isCandidateClass(type, OnWebhookEvent.class)) {
      return Map.of();
    }
    return MethodIntrospector.selectMethods(
        type,
        (MethodIntrospector.MetadataLookup<OnWebhookEvent>)
            method -> AnnotatedElementUtils.findMergedAnnotation(method, OnWebhookEvent.class));
  }

  /** The patterns of an annotation, or every event when it names none. */
  static List<String> patterns(OnWebhookEvent annotation) {
    return annotation == null || annotation.value().length == 0
        ? List.of("*")
        : Arrays.asList(annotation.value());
  }

  private static Class<?> targetType(ConfigurableListableBeanFactory beanFactory, String name) {
    try {
      Class<?> type = AutoProxyUtils.determineTargetClass(beanFactory, name);
      return type != null ? type : beanFactory.getType(name, false);
    } catch (RuntimeException unresolvable) {
      // A bean whose type cannot be determined without creating it cannot declare listeners here.
      return null;
    }
  }

  private static void check(Method method) {
    String problem = null;
    Class<?>[] types = method.getParameterTypes();
    boolean answers = types.length == 2 && isSay(types[1]);
    if (types.length != 1 && !answers) {
      problem =
          "it takes "
              + types.length
              + " parameters but must take exactly one, and may take a Say after it";
    } else if (types[0].isPrimitive()) {
      problem = "its parameter is a primitive, which no payload maps to";
    } else if (isSay(types[0])) {
      problem = "its first parameter is a Say; the event or its payload comes first";
    } else if (Modifier.isStatic(method.getModifiers())) {
      problem = "it is static";
    }
    if (problem != null) {
      throw new IllegalStateException(
          "Invalid @OnWebhookEvent method "
              + describe(method)
              + ": "
              + problem
              + " (the WebhookEvent, or a type its payload maps to)");
    }
  }

  /**
   * Whether a parameter is the answering handle {@code io.servicehooks.registration.Say}, by name:
   * naming the class would load webhook-registration, which is optional.
   */
  static boolean isSay(Class<?> type) {
    return type.getName().equals("io.servicehooks.registration.Say");
  }

  private static void add(
      ConfigurableListableBeanFactory beanFactory,
      WebhookConsumer.Builder builder,
      Object bean,
      Method method,
      OnWebhookEvent annotation) {
    Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
    ReflectionUtils.makeAccessible(invocable);
    MethodListener listener = new MethodListener(bean, invocable, describe(method));
    WebhookListener added =
        invocable.getParameterCount() == 2
            ? new AnsweringMethodListener(
                AnsweringMethods.listener(
                    beanFactory, listener.description, listener::argument, listener::invoke),
                listener.description)
            : listener;
    try {
      builder.on(patterns(annotation), added);
    } catch (IllegalArgumentException badPattern) {
      // The message carries the cause's: the failure analysis then shows the method at the root.
      throw new IllegalStateException(
          "Invalid @OnWebhookEvent method " + describe(method) + ": " + badPattern.getMessage());
    }
  }

  static String describe(Method method) {
    List<String> parameters = new ArrayList<>();
    for (Class<?> parameter : method.getParameterTypes()) {
      parameters.add(parameter.getSimpleName());
    }
    return ClassUtils.getQualifiedMethodName(method) + "(" + String.join(", ", parameters) + ")";
  }

  /** A core listener that calls one annotated method, with the event or its mapped payload. */
  private static final class MethodListener implements WebhookListener {
    private final Object bean;
    private final Method method;
    private final Class<?> parameterType;
    private final String description;

    MethodListener(Object bean, Method method, String description) {
      this.bean = bean;
      this.method = method;
      this.parameterType = method.getParameterTypes()[0];
      this.description = description;
    }

    @Override
    public void onEvent(WebhookEvent event) throws Exception {
      invoke(argument(event));
    }

    /** The method's first argument: the event itself, or its payload mapped to the type. */
    Object argument(WebhookEvent event) {
      return parameterType == WebhookEvent.class ? event : event.payloadAs(parameterType);
    }

    /** Calls the method with {@code arguments}, throwing what it throws. */
    void invoke(Object... arguments) throws Exception {
      try {
        method.invoke(bean, arguments);
      } catch (InvocationTargetException e) {
        Throwable cause = e.getCause();
        if (cause instanceof Exception exception) {
          throw exception;
        }
        if (cause instanceof Error error) {
          throw error;
        }
        throw e;
      }
    }

    @Override
    public String toString() {
      return "@OnWebhookEvent " + description;
    }
  }

  /** A method that also takes a {@code Say}: called through the application's Answering. */
  private record AnsweringMethodListener(WebhookListener answering, String description)
      implements WebhookListener {
    @Override
    public void onEvent(WebhookEvent event) throws Exception {
      answering.onEvent(event);
    }

    @Override
    public String toString() {
      return "@OnWebhookEvent " + description;
    }
  }
}
