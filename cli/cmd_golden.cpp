// aclnn-conform golden (cli/cli.hpp): the oracle's verdict and exact outputs for the inputs a JSON
// request names (.bin files), written as .bin and .npy (campaign/golden.hpp).
#include <iostream>

#include "campaign/golden.hpp"
#include "cli/cli.hpp"

namespace aclnn_conform::cli {

CLI::App *add_golden(CLI::App &app, GoldenOptions &o) {
  auto *golden = app.add_subcommand("golden", "oracle outputs for given inputs (.bin and .npy)");
  golden
      ->add_option("request", o.request,
                   "JSON request: op, product, attrs, tensors with .bin files")
      ->required();
  golden->add_option("--out", o.out, "output directory");
  return golden;
}

int run_golden_command(const GoldenOptions &o) {
  auto request = read_json("golden", o.request);
  // Relative .bin paths are taken from the request file's folder unless it says otherwise.
  if (!request.contains("base_dir"))
    request["base_dir"] = fs::absolute(o.request).parent_path().string();
  const auto summary = run_golden(request, o.out, o.request);
  std::cout << summary.dump(1) << "\n";
  return kExitConformant;
}

}  // namespace aclnn_conform::cli
