// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/view3d.h"

#include <QHBoxLayout>
#include <QImage>
#include <vtkActor.h>
#include <vtkCellArray.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyLine.h>
#include <vtkCamera.h>
#include <vtkCubeSource.h>
#include <vtkCylinderSource.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkLineSource.h>
#include <vtkMatrix4x4.h>
#include <vtkPolyDataMapper.h>
#include <vtkPropCollection.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkSphereSource.h>
#include <vtkTransform.h>
#include <vtkTransformPolyDataFilter.h>
#include <vtkTubeFilter.h>

#include <Eigen/Geometry>
#include <functional>

#include "ui/topology_view.h"
#include "ui/vtk_widget.h"

namespace ek::ui {
namespace {

vtkActor* addActor(vtkRenderer* r, vtkAlgorithmOutput* port, const QColor& c) {
  auto* mapper = vtkPolyDataMapper::New();
  mapper->SetInputConnection(port);
  auto* actor = vtkActor::New();
  actor->SetMapper(mapper);
  actor->GetProperty()->SetColor(c.redF(), c.greenF(), c.blueF());
  r->AddActor(actor);
  mapper->Delete();
  actor->Delete();  // the renderer keeps it
  return actor;
}

constexpr int kHelixPoints = 160;

bool isWheel(const ModelBody& b) {
  return b.name.rfind("wheel", 0) == 0 && b.name.find("mount") == std::string::npos;
}

}  // namespace

View3D::View3D(QWidget* parent) : QWidget(parent), vtk_(new VtkWidget(this)) {
  auto* l = new QHBoxLayout(this);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(vtk_);
  vtk_->renderer()->SetBackground(0.95, 0.96, 0.98);
  vtk_->renderer()->SetBackground2(0.75, 0.80, 0.88);
  vtk_->renderer()->GradientBackgroundOn();
}

View3D::~View3D() = default;

void View3D::setModel(std::shared_ptr<const SuspensionModel> model) {
  model_ = std::move(model);
  vtkRenderer* r = vtk_->renderer();
  r->RemoveAllViewProps();
  bodyActors_.clear();
  p2pLines_.clear();
  helices_.clear();
  last_ = Frame{};
  if (!model_) {  // nothing to show (a new project, tables with errors)
    vtk_->update();
    return;
  }
  bodyActors_.assign(model_->bodies.size(), {});
  for (std::size_t b = 0; b < model_->bodies.size(); ++b) {
    const ModelBody& body = model_->bodies[b];
    const QColor colour = body.fixed ? QColor(120, 120, 120) : subsystemColour(model_->project().bodies[b].subsystem);
    if (!body.fixed && isWheel(body)) {
      // Tyre: a cylinder along the body's x axis (the axle).
      vtkNew<vtkCylinderSource> tyre;
      tyre->SetRadius(0.31);
      tyre->SetHeight(0.2);
      tyre->SetResolution(32);
      vtkNew<vtkTransform> t;
      t->RotateZ(-90.0);  // the cylinder's axis is y: turn it onto x
      vtkNew<vtkTransformPolyDataFilter> f;
      f->SetTransform(t);
      f->SetInputConnection(tyre->GetOutputPort());
      vtkActor* a = addActor(r, f->GetOutputPort(), QColor(45, 45, 50));
      a->GetProperty()->SetOpacity(0.85);
      bodyActors_[b].push_back(a);
    }
    for (std::size_t m = 0; m < model_->markers.size(); ++m) {
      const ModelMarker& mk = model_->markers[m];
      if (mk.body.value != static_cast<int>(b)) continue;
      if (body.fixed) {
        vtkNew<vtkCubeSource> cube;
        cube->SetCenter(mk.s.x(), mk.s.y(), mk.s.z());
        cube->SetXLength(0.025);
        cube->SetYLength(0.025);
        cube->SetZLength(0.025);
        bodyActors_[b].push_back(addActor(r, cube->GetOutputPort(), colour));
        continue;
      }
      if (mk.s.norm() > 1e-6) {
        vtkNew<vtkLineSource> line;
        line->SetPoint1(0, 0, 0);
        line->SetPoint2(mk.s.x(), mk.s.y(), mk.s.z());
        vtkNew<vtkTubeFilter> tube;
        tube->SetInputConnection(line->GetOutputPort());
        tube->SetRadius(0.008);
        tube->SetNumberOfSides(8);
        bodyActors_[b].push_back(addActor(r, tube->GetOutputPort(), colour));
      }
    }
  }
  // Bushings: spheres at marker I, moving with its body.
  for (const ModelBushing& bu : model_->bushings) {
    const ModelMarker& mk = model_->markers[bu.i.value];
    vtkNew<vtkSphereSource> s;
    s->SetCenter(mk.s.x(), mk.s.y(), mk.s.z());
    s->SetRadius(0.014);
    s->SetThetaResolution(10);
    s->SetPhiResolution(8);
    bodyActors_[mk.body.value].push_back(addActor(r, s->GetOutputPort(), QColor(30, 30, 30)));
  }
  // P2P elements between their markers in world coordinates (updated per frame): springs as
  // helices, dampers and stops as tubes.
  helices_.clear();
  for (std::size_t e = 0; e < model_->p2ps.size(); ++e) {
    if (!model_->p2ps[e].spring.isZero()) {
      vtkNew<vtkPoints> pts;
      pts->SetNumberOfPoints(kHelixPoints);
      vtkNew<vtkPolyLine> polyLine;
      polyLine->GetPointIds()->SetNumberOfIds(kHelixPoints);
      for (int k = 0; k < kHelixPoints; ++k) polyLine->GetPointIds()->SetId(k, k);
      vtkNew<vtkCellArray> cells;
      cells->InsertNextCell(polyLine);
      vtkNew<vtkPolyData> poly;
      poly->SetPoints(pts);
      poly->SetLines(cells);
      vtkNew<vtkTubeFilter> tube;
      tube->SetInputData(poly);
      tube->SetRadius(0.006);
      tube->SetNumberOfSides(8);
      addActor(r, tube->GetOutputPort(), QColor(200, 40, 40));
      helices_.push_back({static_cast<int>(e), pts, poly});
      p2pLines_.push_back(nullptr);
      continue;
    }
    auto* line = vtkLineSource::New();
    vtkNew<vtkTubeFilter> tube;
    tube->SetInputConnection(line->GetOutputPort());
    tube->SetRadius(0.012);
    tube->SetNumberOfSides(10);
    vtkActor* a = addActor(r, tube->GetOutputPort(), QColor(240, 180, 40));
    a->GetProperty()->SetOpacity(0.7);
    p2pLines_.push_back(line);
    line->Delete();  // kept alive by the pipeline
  }
  Frame f;
  for (const auto& b : model_->bodies) {
    f.position.push_back(b.p0);
    f.orientation.push_back(b.R0);
  }
  last_ = f;
  applyPoses();
  setView(Preset::Iso);
}

void View3D::showFrame(const Frame& frame) {
  last_ = frame;
  applyPoses();
}

void View3D::setExaggeration(double factor) {
  exaggeration_ = factor;
  applyPoses();
}

void View3D::applyPoses() {
  if (!model_ || last_.position.size() != model_->bodies.size()) return;
  const double k = exaggeration_;
  std::vector<Eigen::Affine3d> pose(model_->bodies.size());
  for (std::size_t b = 0; b < model_->bodies.size(); ++b) {
    const ModelBody& body = model_->bodies[b];
    // Exaggerate the motion from the design pose: p0 + k (p - p0), R0 exp(k log(R0^T R)).
    const Eigen::AngleAxisd rel(body.R0.transpose() * last_.orientation[b]);
    const Mat3 R = body.R0 * Eigen::AngleAxisd(k * rel.angle(), rel.axis()).toRotationMatrix();
    pose[b] = Eigen::Translation3d(body.p0 + k * (last_.position[b] - body.p0)) * R;
    vtkNew<vtkMatrix4x4> m;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) m->SetElement(i, j, pose[b].matrix()(i, j));
    for (vtkActor* a : bodyActors_[b]) a->SetUserMatrix(m);
  }
  auto ends = [&](std::size_t e) {
    const ModelMarker& mi = model_->markers[model_->p2ps[e].i.value];
    const ModelMarker& mj = model_->markers[model_->p2ps[e].j.value];
    return std::pair<Vec3, Vec3>{pose[mi.body.value] * mi.s, pose[mj.body.value] * mj.s};
  };
  for (std::size_t e = 0; e < p2pLines_.size(); ++e) {
    if (!p2pLines_[e]) continue;
    const auto [a, b] = ends(e);
    p2pLines_[e]->SetPoint1(a.x(), a.y(), a.z());
    p2pLines_[e]->SetPoint2(b.x(), b.y(), b.z());
  }
  for (const Helix& h : helices_) {
    const auto [a, b] = ends(static_cast<std::size_t>(h.element));
    const Vec3 axis = b - a;
    const Vec3 n = axis.normalized();
    const Vec3 u = n.unitOrthogonal(), v = n.cross(u);
    const double radius = 0.055, turns = 6.5;
    for (int k = 0; k < kHelixPoints; ++k) {
      const double t = static_cast<double>(k) / (kHelixPoints - 1), phi = 2.0 * M_PI * turns * t;
      const Vec3 p = a + t * axis + radius * (std::cos(phi) * u + std::sin(phi) * v);
      h.points->SetPoint(k, p.x(), p.y(), p.z());
    }
    h.points->Modified();
    h.poly->Modified();
  }
  vtk_->update();
}

void View3D::setView(Preset p) {
  vtkRenderer* r = vtk_->renderer();
  vtkCamera* c = r->GetActiveCamera();
  c->SetFocalPoint(0, 0, 0.3);
  switch (p) {
    case Preset::Front: c->SetPosition(4, 0, 0.3); break;   // looking backwards (x forward)
    case Preset::Side: c->SetPosition(0, 4, 0.3); break;    // from the left
    case Preset::Top: c->SetPosition(0, 0, 4.3); break;
    case Preset::Iso: c->SetPosition(2.6, 2.2, 1.9); break;
  }
  c->SetViewUp(p == Preset::Top ? 1 : 0, 0, p == Preset::Top ? 0 : 1);
  r->ResetCamera();
  c->Zoom(1.3);
  vtk_->update();
}

int View3D::actorCount() const { return vtk_->renderer()->GetViewProps()->GetNumberOfItems(); }

void View3D::highlight(int body) {
  for (std::size_t b = 0; b < bodyActors_.size(); ++b)
    for (vtkActor* a : bodyActors_[b]) {
      if (static_cast<int>(b) == body) {
        a->GetProperty()->SetAmbient(0.6);
        a->GetProperty()->SetAmbientColor(1.0, 0.9, 0.0);
      } else {
        a->GetProperty()->SetAmbient(0.0);
      }
    }
  vtk_->update();
}

QImage View3D::grab3D() { return vtk_->grabFramebuffer(); }

}  // namespace ek::ui
