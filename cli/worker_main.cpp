// aclnn-conform-worker: one worker process of a campaign, started fresh by the campaign (fork and
// exec) so that it loads the library under test, starts its device and creates its stream itself.
// Not meant to be run by hand: it speaks the pipe protocol of campaign/worker_protocol.hpp on
// descriptors 3 (commands), 4 (records) and 5 (the call-trace page).
#include "campaign/worker.hpp"

int main(int argc, char **argv) {
  return aclnn_conform::worker_process_main(argc, argv);
}
