package io.servicehooks.cli;

import picocli.CommandLine.IVersionProvider;

/** The version printed by {@code --version}: the jar's implementation version, when packaged. */
final class VersionProvider implements IVersionProvider {

  @Override
  public String[] getVersion() {
    String version = VersionProvider.class.getPackage().getImplementationVersion();
    return new String[] {"servicehooks " + (version == null ? "(development build)" : version)};
  }
}
