package io.servicehooks.spring;

import java.util.Map;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** Stands in for the process environment, which a test cannot set. */
final class FakeEnvironment
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {

  private final Map<String, Object> variables;

  private FakeEnvironment(Map<String, Object> variables) {
    this.variables = variables;
  }

  static FakeEnvironment of(Map<String, Object> variables) {
    return new FakeEnvironment(Map.copyOf(variables));
  }

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    String name = StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME;
    var sources = context.getEnvironment().getPropertySources();
    SystemEnvironmentPropertySource fake = new SystemEnvironmentPropertySource(name, variables);
    if (sources.contains(name)) {
      sources.replace(name, fake);
    } else {
      sources.addLast(fake);
    }
  }
}
