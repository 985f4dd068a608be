// How a `pecan` subcommand plugs into the command line: each *_command.cpp registers itself
// with a static PECAN_COMMAND(...) so main.cpp never changes when a command is added.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pecan::cli {

// Adds the subcommand's options to `app` and returns the function that runs it (exit status).
using CommandSetup = std::function<std::function<int()>(CLI::App& app)>;

struct CommandSpec {
  std::string name;
  std::string description;
  int order;  // position in `pecan --help`
  CommandSetup setup;
};

std::vector<CommandSpec>& CommandRegistry();

struct CommandRegistrar {
  explicit CommandRegistrar(CommandSpec spec) { CommandRegistry().push_back(std::move(spec)); }
};

}  // namespace pecan::cli

#define PECAN_COMMAND_CONCAT_(a, b) a##b
#define PECAN_COMMAND_CONCAT(a, b) PECAN_COMMAND_CONCAT_(a, b)
#define PECAN_COMMAND(name, description, order, setup)                                        \
  static ::pecan::cli::CommandRegistrar PECAN_COMMAND_CONCAT(pecan_command_, __LINE__)(       \
      ::pecan::cli::CommandSpec{name, description, order, setup})
