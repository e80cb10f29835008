// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file view3d.h
/// The 3D view of a suspension (VTK): bodies drawn from their markers (links as tubes from the
/// centre of mass to each marker, wheels as tyres), bushings as spheres, P2P elements as lines
/// between their markers, ground mounts as cubes; coloured by subsystem. Frames of a run re-pose
/// the bodies; small elastic deflections can be exaggerated.

#include <QWidget>
#include <memory>
#include <vector>

#include "engine/model/model.h"
#include "ui/simulation_worker.h"

class vtkActor;
class vtkLineSource;
class vtkPoints;
class vtkPolyData;

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
  void setExaggeration(double factor);
  enum class Preset { Front, Side, Top, Iso };
  void setView(Preset p);
  VtkWidget* vtkWidget() const { return vtk_; }
  /// Highlights one body (index in SuspensionModel::bodies; -1: none).
  void highlight(int body);
  QImage grab3D();

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
  Frame last_;
  double exaggeration_ = 1.0;
};

}  // namespace ek::ui
