// SPDX-License-Identifier: GPL-3.0-or-later
// Output channels: resolution by name, units, values from the workspace.
#include <QtTest>

#include "engine/analysis/simulation.h"
#include "engine/dynamics/outputs.h"
#include "engine/model/project_io.h"

using namespace ek;

class TestOutputs : public QObject {
  Q_OBJECT
 private slots:
  void resolveByNameWithUnits() {
    const auto m = SuspensionModel::build(
        readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/quarter_double_wishbone.json"));
    const auto all = resolveChannels(*m, {});
    QCOMPARE(all.size(), m->project().outputs.size());
    const auto two = resolveChannels(*m, {"spring force left", "wheel centre x left"});
    QCOMPARE(two.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(two[0].unit), QString("N"));
    QCOMPARE(QString::fromStdString(two[1].unit), QString("m"));
    try {
      resolveChannels(*m, {"nope"});
      QFAIL("no error");
    } catch (const std::invalid_argument& e) {
      QVERIFY(QString(e.what()).contains("'wheel centre x left'"));  // lists the known channels
    }
  }

  void valuesAreTheWorkspaceQuantities() {
    const auto m = SuspensionModel::build(
        readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/quarter_double_wishbone.json"));
    Simulation sim(m, "LC1", RunOptions{});
    sim.initialize();
    const Recorder& rec = sim.results();
    QCOMPARE(rec.size(), std::size_t(1));
    for (std::size_t c = 0; c < rec.channels().size(); ++c) {
      const Channel& ch = rec.channels()[c];
      if (ch.quantity == OutputQuantity::MarkerDisplacement)  // from the design position: the static deflection
        QVERIFY(std::abs(rec.value(0, c)) > 1e-5 && std::abs(rec.value(0, c)) < 0.05);
      if (ch.quantity == OutputQuantity::Input) QCOMPARE(rec.value(0, c), 0.0);              // Fx before 5 s
      if (ch.quantity == OutputQuantity::P2PForce && ch.name == "spring force left")
        QVERIFY(rec.value(0, c) < -5000.0);  // the spring is compressed carrying the wheel load
    }
  }
};

QTEST_APPLESS_MAIN(TestOutputs)
#include "tst_outputs.moc"
