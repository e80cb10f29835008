// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file analysis_report.h
/// How an analysis result is shown: K&C curves as in a K&C report (one plot per quantity, both
/// wheels), Bode plots, the mode chart, the metrics / response / mode table, and the PDF report
/// built from them. The Analyses tab draws its plots and table with these functions, and
/// `elastokin-sim --report` writes the same report without a window (docs/analyses.md). A library
/// of its own (Qt Widgets and QCustomPlot, no VTK), so that the runner links no 3D view.

#include <QFont>
#include <QString>
#include <QStringList>
#include <vector>

#include "engine/analysis/kc.h"
#include "engine/analysis/kc_measured.h"
#include "engine/analysis/linear_analysis.h"
#include "ui/document/units.h"

class QCustomPlot;
class QCPTextElement;

namespace ek::ui {

enum class AnalysisKind { Kc, Frequency, Modes };

/// The analyses by runner name, with the title shown for them.
struct AnalysisChoice {
  const char* name;
  const char* label;
};
extern const AnalysisChoice kAnalysisChoices[7];
/// The title of an analysis ("Parallel wheel travel"), or the name itself if unknown.
QString analysisTitle(const QString& analysis);

struct AnalysisResult {
  AnalysisKind kind = AnalysisKind::Kc;
  QString analysis;  ///< runner name, e.g. "parallel-travel"
  QString label;     ///< legend text
  Project project;   ///< the project it was computed from
  KcResult kc;
  FrequencyResponse frequency;
  ModesResult modes;
  OperatingPoint point;
};

/// A result as drawn: the result and its legend text.
struct ShownResult {
  const AnalysisResult* result;
  QString legend;
};

/// A point of the kinematics a K&C sweep found at its design position, for the 3D view: a wheel's
/// instant centres (front view: at the wheel centre's x; side view: at its y) and the roll
/// centre (at the wheels' mean x), in global coordinates [m].
struct KcCentre {
  QString name;  ///< "IC front, wheel left", "IC side, wheel left", "roll centre"
  Vec3 at;
};
/// The centres of a K&C result at the sweep point nearest zero; none for other analyses, and a
/// centre at infinity (parallel links) is left out.
std::vector<KcCentre> kcCentresAtDesign(const AnalysisResult& result);

/// The plot layout both the tab and the report use: at most this many plots per analysis.
constexpr int kAnalysisPlots = 6;

/// A plot as the tab and the report show it: a bold title row above the axes.
QCustomPlot* newAnalysisPlot(QWidget* parent, const QFont& font);

/// The legend in a row of its own under the axes (never over the curves), `columns` entries
/// per row, or taken out of the layout when not shown.
void placeLegendBelow(QCustomPlot* plot, bool show, int columns = 2);

/// Folds a legend placed below the axes into one line naming how many curves it holds (the axes
/// take the height it had), or unfolds it. Nothing happens when no legend is shown. The fold
/// line is a child of the plot, made once: see legendFoldLine().
void foldLegend(QCustomPlot* plot, bool folded);
/// The one line a folded legend shows (made on the first call, found again by its name: the
/// layout that takes it becomes its parent; its clicked() signal unfolds).
QCPTextElement* legendFoldLine(QCustomPlot* plot);
/// True while the plot shows its fold line in the legend's place.
bool legendFolded(const QCustomPlot* plot);

struct PlotChoices {
  QString output;                       ///< the Bode plots' output channel
  double modesFrom = 0.0, modesTo = 100.0;  ///< the mode chart's frequency range [Hz]
  QFont font;                           ///< legend font family
  const MeasuredKc* measured = nullptr;  ///< K&C: measured points drawn over the current sweep
  /// Units of the frequency response (the workbench's View > Units; the runner's report: SI). K&C
  /// curves are in mm and deg whatever the system, as K&C reports give them.
  UnitSystem units = UnitSystem::SI;
  /// K&C: plot the current result minus the reference (the last kept result) instead of both.
  bool difference = false;
};

/// Draws `shown` (the last one is the current result, drawn on top; all of one kind and analysis)
/// into `plots` (kAnalysisPlots of them, from newAnalysisPlot): K&C: toe, camber, wheel-centre x,
/// half-track, vertical force, caster; frequency response: magnitude and phase of
/// `choices.output`; modes: damping ratio over natural frequency. Plots without graphs are left
/// empty (the caller hides them); visibility is not touched, so the plots may be off screen.
void drawAnalysisPlots(const std::vector<ShownResult>& shown, const PlotChoices& choices,
                       const std::vector<QCustomPlot*>& plots);

/// The table next to the plots, as text: K&C metrics (current value, unit, the targets' verdict
/// and range, then the reference (the last kept K&C result) with the difference to it in the
/// unit and in percent, then the older kept results), the response of each output, or the mode
/// list. `model` names the modes'
/// dominant bodies (may be null: body slots then).
struct TextTable {
  QStringList header;
  std::vector<QStringList> rows;
};
TextTable analysisTable(const AnalysisResult& current, const std::vector<const AnalysisResult*>& kept,
                        const SuspensionModel* model, UnitSystem units = UnitSystem::SI);

/// What goes into a PDF report.
struct ReportContent {
  const AnalysisResult* current = nullptr;
  std::vector<ShownResult> kept;        ///< overlaid results of the same analysis, with their legends
  const SuspensionModel* model = nullptr;
  PlotChoices choices;                  ///< choices.output empty: a Bode page for every output
  QStringList notes;                    ///< further lines on the title page (e.g. "not current")
};
struct ReportPages {
  int total = 0;  ///< title pages (the table continues over as many as it needs) and plot pages
  int plots = 0;  ///< pages with plots
  int correlationRows = 0;  ///< rows of the table of the correlation with measured data
};

/// Writes the report: a title page (project, analysis, operating point, legends, notes, the table,
/// continued on further pages when long), then a page per plot group (a K&C quantity; a Bode pair
/// per output; the mode chart). Needs a QApplication. @returns an error text or empty.
QString writeAnalysisReport(const QString& path, const ReportContent& content, ReportPages* pages = nullptr);

}  // namespace ek::ui
