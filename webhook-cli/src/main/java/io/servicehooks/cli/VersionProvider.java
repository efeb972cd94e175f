package io.servicehooks.cli;

import picocli.CommandLine.IVersionProvider;

/**
 * The lines printed by {@code --version}: the jar's implementation version, when packaged, and the
 * licence the command line is distributed under (the LICENSE file at the repository's root).
 */
final class VersionProvider implements IVersionProvider {

  static final String LICENCE =
      "Licensed under the Apache License, Version 2.0: https://www.apache.org/licenses/LICENSE-2.0";

  @Override
  public String[] getVersion() {
    String version = VersionProvider.class.getPackage().getImplementationVersion();
    return new String[] {
      "servicehooks " + (version == null ? "(development build)" : version), LICENCE
    };
  }
}
