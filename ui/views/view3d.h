// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file view3d.h
/// The 3D view of a suspension (VTK): bodies drawn from their markers (links as tubes from the
/// centre of mass to each marker, wheels as tyres), bushings as spheres, P2P elements as lines
/// between their markers, ground mounts as cubes; coloured by subsystem. Frames of a run re-pose
/// the bodies; small elastic deflections can be exaggerated relative to a reference pose (the
/// run's initial equilibrium), with the design pose as an optional ghost. A triad in the corner
/// shows the ISO 8855 axes; presets and "fit" frame everything for the viewport's aspect ratio.

#include <QWidget>
#include <memory>
#include <vector>

#include "engine/model/model.h"
#include "ui/run/simulation_worker.h"

class vtkActor;
class vtkLineSource;
class vtkRenderer;
class vtkPoints;
class vtkPolyData;

class vtkProp;
class vtkTextActor;
class QTimer;

namespace ek::ui {

class VtkWidget;

class View3D : public QWidget {
  Q_OBJECT
 public:
  explicit View3D(QWidget* parent = nullptr);
  ~View3D() override;
  /// Builds the actors of a model in its design pose (null: removes every actor).
  void setModel(std::shared_ptr<const SuspensionModel> model);
  /// Actors in the scene (bodies, bushings, P2P elements).
  int actorCount() const;
  void showFrame(const Frame& frame);
  /// The pose the exaggeration scales from (a run's initial equilibrium); setModel resets it to
  /// the design pose.
  void setReference(const Frame& frame);
  void setExaggeration(double factor);
  /// Shows the design pose as a translucent ghost.
  void setGhost(bool on);
  bool ghost() const { return ghost_; }
  enum class Preset { Front, Side, Top, Iso };
  void setView(Preset p);
  /// Parallel projection (lengths read true in the front, side and top views) or perspective.
  void setOrthographic(bool on);
  bool orthographic() const;
  /// Moves the camera along its direction so that every actor fits the viewport (both its width
  /// and its height) with a margin.
  void fitAll();
  /// The camera frames every actor (projected bounding-box corners within the viewport).
  bool everythingInView() const;
  VtkWidget* vtkWidget() const { return vtk_; }
  /// Highlights one body (index in SuspensionModel::bodies; -1: none).
  void highlight(int body);
  /// The view as rendered, opaque (translucent actors over the background, as on screen).
  QImage grab3D();
  /// Points of the kinematics drawn as labelled balls in global coordinates (the instant and
  /// roll centres of a K&C sweep); an empty list removes them.
  struct Mark {
    QString label;
    Vec3 at;
  };
  void setMarks(const std::vector<Mark>& marks);
  const std::vector<Mark>& marks() const { return marks_; }

  /// Flexible bodies are drawn with their elastic line, the nodes joined in order and moved by
  /// the frame's modal coordinates times this scale (1: true size).
  void setDeformationScale(double scale);
  double deformationScale() const { return deformationScale_; }
  /// Animates mode `mode` of flexible body `flex` (SuspensionModel::flexibleBodies; -1 stops):
  /// q_mode = a sin(phase), one cycle in 1.5 s, a such that the largest displacement of a node is
  /// 5 % of the body's size, whatever the deformation scale. A frame shown stops it.
  void animateMode(int flex, int mode);
  bool animating() const { return animFlex_ >= 0; }
  /// The animation's phase [rad] (tests, stills).
  void setModePhase(double phase);
  /// What the animation shows: body, mode, frequency and the largest displacement drawn.
  QString modeCaption() const { return modeCaption_; }
  /// The text in the view's upper left corner: the mode animated, or the deformation scale of
  /// the flexible bodies ("" without flexible bodies).
  QString caption() const;
  /// Flexible body `flex`'s elastic line as drawn now, in its body frame (about its centre of mass).
  std::vector<Vec3> elasticLine(int flex) const;

 private:
  void applyPoses();
  VtkWidget* vtk_;
  std::shared_ptr<const SuspensionModel> model_;
  std::vector<std::vector<vtkActor*>> bodyActors_;  ///< per body (owned by the renderer)
  std::vector<vtkLineSource*> p2pLines_;   ///< per P2P element; null for springs
  struct Helix {
    int element;
    vtkPoints* points;
    vtkPolyData* poly;
  };
  std::vector<Helix> helices_;             ///< springs drawn as helices
  struct ElasticLine {
    int flex;
    vtkPoints* points;
    vtkPolyData* poly;
  };
  std::vector<ElasticLine> elasticLines_;  ///< per flexible body
  void updateElasticLines();
  double deformationScale_ = 1.0;
  int animFlex_ = -1, animMode_ = 0;
  double animAmplitude_ = 0.0, animPhase_ = 0.0;
  QString modeCaption_;
  vtkTextActor* captionActor_ = nullptr;
  void updateCaption();
  QTimer* animTimer_ = nullptr;
  std::vector<vtkActor*> ghostActors_;    ///< the design pose (owned by the renderer)
  vtkRenderer* triad_ = nullptr;            ///< corner renderer of the axes (owned by the window)
  std::pair<vtkRenderer*, vtkRenderer*> triadLink_;  ///< (main, triad) for the camera sync
  unsigned long triadObserver_ = 0;
  std::vector<Mark> marks_;
  std::vector<vtkProp*> markProps_;  ///< their actors (owned by the renderer)
  Frame last_, reference_;
  double exaggeration_ = 1.0;
  bool ghost_ = false;
};

}  // namespace ek::ui
