// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-tyre-bench: the cost of one Magic Formula tyre contact (docs/tyres.md), values only
// and with its partial derivatives, on the test tyre of tests/data/tyres at a rolling, cambered,
// turning state: medians of repeated timed batches (CPU time of this thread).
//   elastokin-tyre-bench [--calls N] [--repeat N]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "engine/core/text.h"
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
  long long calls = 20000, repeat = 9;
  for (int k = 1; k < argc; k += 2) {
    const bool known = k + 1 < argc && (std::strcmp(argv[k], "--calls") == 0 || std::strcmp(argv[k], "--repeat") == 0);
    if (!known || !ek::parseInteger(argv[k + 1], std::strcmp(argv[k], "--calls") == 0 ? calls : repeat, 1, 100000000)) {
      ek::cfprintf(stderr, "usage: elastokin-tyre-bench [--calls N] [--repeat N] (N from 1)\n");
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
    for (long long r = 0; r < repeat; ++r) {
      const double t0 = threadSeconds();
      for (long long k = 0; k < calls; ++k) {
        s.spin = 68.0 + 1e-6 * static_cast<double>(k);
        tyreContact(tyre, TyreRoad{}, TyreContactOptions{}, s, partials == 1, c);
        sink += c.result[kTyreForce + 1];
      }
      perCall.push_back(1e6 * (threadSeconds() - t0) / static_cast<double>(calls));
    }
    std::sort(perCall.begin(), perCall.end());
    ek::cprintf("tyre contact, %-14s median %.3f us CPU per call (%lld batches of %lld calls; min %.3f, max %.3f)\n",
                partials ? "with partials:" : "values only:", perCall[perCall.size() / 2], repeat, calls, perCall.front(),
                perCall.back());
  }
  return sink == 0.123 ? 1 : 0;  // keeps the calls
}
