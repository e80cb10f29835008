// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-tyre-bench: the cost of one Magic Formula tyre contact (docs/tyres.md), values only
// and with its partial derivatives, on the test tyre of tests/data/tyres at a rolling, cambered,
// turning state: medians of repeated timed batches (CPU time of this thread).
//   elastokin-tyre-bench [--calls N] [--repeat N]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "engine/dynamics/tyre_contact.h"
#include "engine/model/tyre_property.h"

namespace {

double threadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 20000, repeat = 9;
  for (int k = 1; k + 1 < argc; k += 2) {
    if (std::strcmp(argv[k], "--calls") == 0) calls = std::max(1, std::atoi(argv[k + 1]));
    else if (std::strcmp(argv[k], "--repeat") == 0) repeat = std::max(1, std::atoi(argv[k + 1]));
    else {
      std::fprintf(stderr, "usage: elastokin-tyre-bench [--calls N] [--repeat N]\n");
      return 2;
    }
  }
  using namespace ek;
  const TyreProperty tyre = readTyreProperty(std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/tyres/car_205_60R15_mf61_si.tir");
  TyreContactState s;
  s.centre = Vec3(0.0, 0.0, 0.295);
  s.axis = Vec3(0.02, 1.0, 0.01).normalized();
  s.velocity = Vec3(20.0, 0.5, 0.0);
  s.angularVelocity = Vec3(0.1, 0.2, 0.3);
  s.deflectionX = 0.003;
  s.deflectionY = -0.004;
  TyreContact c;
  double sink = 0.0;
  for (int partials = 0; partials < 2; ++partials) {
    std::vector<double> perCall;
    for (int r = 0; r < repeat; ++r) {
      const double t0 = threadSeconds();
      for (int k = 0; k < calls; ++k) {
        s.spin = 68.0 + 1e-6 * k;
        tyreContact(tyre, TyreRoad{}, TyreContactOptions{}, s, partials == 1, c);
        sink += c.result[kTyreForce + 1];
      }
      perCall.push_back(1e6 * (threadSeconds() - t0) / calls);
    }
    std::sort(perCall.begin(), perCall.end());
    std::printf("tyre contact, %-14s median %.3f us CPU per call (%d batches of %d calls; min %.3f, max %.3f)\n",
                partials ? "with partials:" : "values only:", perCall[perCall.size() / 2], repeat, calls, perCall.front(),
                perCall.back());
  }
  return sink == 0.123 ? 1 : 0;  // keeps the calls
}
