// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/views/view3d.h"

#include <QHBoxLayout>
#include <QImage>
#include <QTimer>
#include <vtkActor.h>
#include <vtkAxesActor.h>
#include <vtkCallbackCommand.h>
#include <vtkCaptionActor2D.h>
#include <vtkCellArray.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyLine.h>
#include <vtkCamera.h>
#include <vtkCubeSource.h>
#include <vtkCylinderSource.h>
#include <vtkDataSetSurfaceFilter.h>
#include <vtkDelaunay2D.h>
#include <vtkDelaunay3D.h>
#include <vtkFeatureEdges.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkLineSource.h>
#include <vtkMatrix4x4.h>
#include <vtkPolyDataMapper.h>
#include <vtkPropCollection.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkSphereSource.h>
#include <vtkTextActor.h>
#include <vtkCoordinate.h>
#include <vtkTextProperty.h>
#include <vtkTransform.h>
#include <vtkTransformPolyDataFilter.h>
#include <vtkTubeFilter.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <functional>

#include "ui/views/topology_view.h"
#include "ui/views/vtk_widget.h"

namespace ek::ui {
namespace {

vtkActor* addActor(vtkRenderer* r, vtkAlgorithmOutput* port, const QColor& c) {
  auto* mapper = vtkPolyDataMapper::New();
  mapper->SetInputConnection(port);
  mapper->ScalarVisibilityOff();  // the actor's colour, never a filter's point data
  auto* actor = vtkActor::New();
  actor->SetMapper(mapper);
  actor->GetProperty()->SetColor(c.redF(), c.greenF(), c.blueF());
  r->AddActor(actor);
  mapper->Delete();
  actor->Delete();  // the renderer keeps it
  return actor;
}

constexpr int kHelixPoints = 160;

/// How many independent directions a point set spans (0 to 3), to a relative tolerance of its
/// size: 3 for a solid, 2 for a plate, 1 for a link, 0 for a single point.
int spannedDimensions(const std::vector<Vec3>& points) {
  if (points.size() < 2) return 0;
  Vec3 mean = Vec3::Zero();
  for (const Vec3& p : points) mean += p / static_cast<double>(points.size());
  Mat3 scatter = Mat3::Zero();
  for (const Vec3& p : points) scatter += (p - mean) * (p - mean).transpose();
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(scatter);
  const Vec3 spread = eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();  // ascending
  if (spread[2] < 1e-6) return 0;
  return 1 + (spread[1] > 1e-2 * spread[2]) + (spread[0] > 1e-2 * spread[2]);
}

/// A body drawn as the convex hull of its markers (in its own frame): a solid (the Delaunay
/// tetrahedra's outer surface), a plate (the plane's triangulation) or a link (a tube); a single
/// point as a small ball.
std::vector<vtkActor*> hullActors(vtkRenderer* r, const std::vector<Vec3>& points, const QColor& colour) {
  std::vector<vtkActor*> actors;
  const int dims = spannedDimensions(points);
  vtkNew<vtkPoints> pts;
  for (const Vec3& p : points) pts->InsertNextPoint(p.x(), p.y(), p.z());
  vtkNew<vtkPolyData> cloud;
  cloud->SetPoints(pts);
  if (dims == 3) {
    vtkNew<vtkDelaunay3D> hull;
    hull->SetInputData(cloud);
    vtkNew<vtkDataSetSurfaceFilter> surface;
    surface->SetInputConnection(hull->GetOutputPort());
    // A body as large as a vehicle's would hide the suspension inside it: the hull's edges only
    // (where its faces meet at an angle, not the triangulation of a flat side).
    double bounds[6];
    cloud->GetBounds(bounds);
    if (std::max({bounds[1] - bounds[0], bounds[3] - bounds[2], bounds[5] - bounds[4]}) > 0.8) {
      vtkNew<vtkFeatureEdges> edges;
      edges->SetInputConnection(surface->GetOutputPort());
      edges->FeatureEdgesOn();
      edges->SetFeatureAngle(15.0);
      edges->BoundaryEdgesOff();
      edges->ManifoldEdgesOff();
      edges->NonManifoldEdgesOff();
      edges->ColoringOff();
      vtkActor* outline = addActor(r, edges->GetOutputPort(), colour);
      outline->GetProperty()->SetLineWidth(2.0);
      actors.push_back(outline);
    } else {
      actors.push_back(addActor(r, surface->GetOutputPort(), colour));
    }
  } else if (dims == 2) {
    vtkNew<vtkDelaunay2D> plate;
    plate->SetInputData(cloud);
    plate->SetProjectionPlaneMode(VTK_BEST_FITTING_PLANE);
    actors.push_back(addActor(r, plate->GetOutputPort(), colour));
  }
  if (dims <= 2) {
    // The outline (a plate) or the link itself as tubes between the two farthest points, so
    // a plate seen edge-on stays visible.
    std::size_t a = 0, b = points.empty() ? 0 : points.size() - 1;
    double far = -1.0;
    for (std::size_t i = 0; i < points.size(); ++i)
      for (std::size_t j = i + 1; j < points.size(); ++j)
        if ((points[i] - points[j]).norm() > far) far = (points[i] - points[j]).norm(), a = i, b = j;
    if (dims >= 1) {
      vtkNew<vtkLineSource> line;
      line->SetPoint1(points[a].x(), points[a].y(), points[a].z());
      line->SetPoint2(points[b].x(), points[b].y(), points[b].z());
      vtkNew<vtkTubeFilter> tube;
      tube->SetInputConnection(line->GetOutputPort());
      tube->SetRadius(0.008);
      tube->SetNumberOfSides(8);
      actors.push_back(addActor(r, tube->GetOutputPort(), colour));
    } else {
      const Vec3 at = points.empty() ? Vec3::Zero() : points.front();
      vtkNew<vtkSphereSource> ball;
      ball->SetCenter(at.x(), at.y(), at.z());
      ball->SetRadius(0.012);
      actors.push_back(addActor(r, ball->GetOutputPort(), colour));
    }
  }
  return actors;
}

bool isWheel(const ModelBody& b) {
  return b.name.rfind("wheel", 0) == 0 && b.name.find("mount") == std::string::npos;
}

/// The poses of a model's bodies as modelled.
Frame designFrame(const SuspensionModel& m) {
  Frame f;
  for (const auto& b : m.bodies) {
    f.position.push_back(b.p0);
    f.orientation.push_back(b.R0);
  }
  return f;
}

vtkMatrix4x4* toVtk(const Eigen::Affine3d& pose, vtkMatrix4x4* m) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) m->SetElement(i, j, pose.matrix()(i, j));
  return m;
}

/// Before each render: the triad's camera looks from the main camera's direction.
void syncTriad(vtkObject*, unsigned long, void* self, void*) {
  auto* pair = static_cast<std::pair<vtkRenderer*, vtkRenderer*>*>(self);
  vtkCamera* main = pair->first->GetActiveCamera();
  vtkCamera* c = pair->second->GetActiveCamera();
  double pos[3], focal[3], up[3];
  main->GetPosition(pos);
  main->GetFocalPoint(focal);
  main->GetViewUp(up);
  Vec3 d(pos[0] - focal[0], pos[1] - focal[1], pos[2] - focal[2]);
  d = 4.3 * d.normalized();  // the labels beyond the tips stay inside the corner
  c->SetFocalPoint(0, 0, 0);
  c->SetPosition(d.x(), d.y(), d.z());
  c->SetViewUp(up);
  pair->second->ResetCameraClippingRange();
}

}  // namespace

View3D::View3D(QWidget* parent) : QWidget(parent), vtk_(new VtkWidget(this)) {
  auto* l = new QHBoxLayout(this);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(vtk_);
  vtk_->renderer()->SetBackground(0.95, 0.96, 0.98);
  vtk_->renderer()->SetBackground2(0.75, 0.80, 0.88);
  vtk_->renderer()->GradientBackgroundOn();
  vtk_->renderer()->SetBackgroundAlpha(1.0);
  // The ISO 8855 axes (x forward, y left, z up) in the lower left corner, turning with the view.
  vtkNew<vtkRenderer> triad;
  triad->SetViewport(0.0, 0.0, 0.14, 0.2);
  triad->SetLayer(1);
  triad->InteractiveOff();
  vtkNew<vtkAxesActor> axes;
  axes->SetTotalLength(1.0, 1.0, 1.0);
  axes->SetShaftTypeToCylinder();
  axes->SetCylinderRadius(0.03);
  for (vtkCaptionActor2D* caption : {axes->GetXAxisCaptionActor2D(), axes->GetYAxisCaptionActor2D(), axes->GetZAxisCaptionActor2D()}) {
    caption->GetTextActor()->SetTextScaleModeToNone();
    caption->GetCaptionTextProperty()->SetFontSize(13);
    caption->GetCaptionTextProperty()->SetColor(0.1, 0.1, 0.1);
    caption->GetCaptionTextProperty()->ShadowOff();
    caption->GetCaptionTextProperty()->ItalicOff();
  }
  triad->AddActor(axes);
  vtk_->renderWindow()->SetNumberOfLayers(2);
  vtk_->renderWindow()->AddRenderer(triad);
  triad_ = triad;
  triadLink_ = {vtk_->renderer(), triad_};
  vtkNew<vtkCallbackCommand> sync;
  sync->SetCallback(syncTriad);
  sync->SetClientData(&triadLink_);
  triadObserver_ = vtk_->renderer()->AddObserver(vtkCommand::StartEvent, sync);
}

View3D::~View3D() { vtk_->renderer()->RemoveObserver(triadObserver_); }

void View3D::setDeformationScale(double scale) {
  deformationScale_ = scale;
  updateElasticLines();
  vtk_->update();
}

void View3D::animateMode(int flex, int mode) {
  if (!model_ || flex < 0 || flex >= static_cast<int>(model_->flexibleBodies.size()) || mode < 0 ||
      mode >= model_->flexibleBodies[static_cast<std::size_t>(flex)].modes()) {
    animFlex_ = -1;
    if (animTimer_) animTimer_->stop();
    modeCaption_.clear();
    updateElasticLines();
    vtk_->update();
    return;
  }
  const ModelFlexibleBody& f = model_->flexibleBodies[static_cast<std::size_t>(flex)];
  // The body's size: its nodes' bounding box; the mode's largest node translation per unit q.
  Vec3 lo = Vec3::Constant(INFINITY), hi = -lo;
  double largest = 0.0;
  for (std::size_t i = 0; i < f.modal.nodes.size(); ++i) {
    lo = lo.cwiseMin(f.modal.nodes[i]);
    hi = hi.cwiseMax(f.modal.nodes[i]);
    largest = std::max(largest, f.modal.translation(static_cast<int>(i)).col(mode).norm());
  }
  const double size = f.modal.nodes.empty() ? 0.0 : (hi - lo).norm();
  animFlex_ = flex;
  animMode_ = mode;
  animAmplitude_ = largest > 0.0 ? 0.05 * size / largest : 0.0;
  animPhase_ = M_PI / 2.0;
  modeCaption_ = tr("%1, mode %2: %3 Hz, drawn with its largest displacement %4 mm (5 % of the body's size)")
                     .arg(QString::fromStdString(f.name))
                     .arg(mode + 1)
                     .arg(f.modal.frequencies[mode], 0, 'f', 1)
                     .arg(1000.0 * 0.05 * size, 0, 'f', 0);
  if (!animTimer_) {
    animTimer_ = new QTimer(this);
    animTimer_->setInterval(33);
    connect(animTimer_, &QTimer::timeout, this, [this] { setModePhase(animPhase_ + 2.0 * M_PI / 45.0); });
  }
  animTimer_->start();
  setModePhase(animPhase_);
}

void View3D::setModePhase(double phase) {
  animPhase_ = std::fmod(phase, 2.0 * M_PI);
  updateElasticLines();
  vtk_->update();
}

QString View3D::caption() const {
  if (!model_ || model_->flexibleBodies.empty()) return {};
  if (animFlex_ >= 0) return modeCaption_;
  return tr("Flexible bodies: elastic deformation drawn %1 x").arg(deformationScale_, 0, 'g', 6);
}

void View3D::updateCaption() {
  if (captionActor_) captionActor_->SetInput(caption().toUtf8().constData());
}

std::vector<Vec3> View3D::elasticLine(int flex) const {
  std::vector<Vec3> out;
  for (const ElasticLine& l : elasticLines_) {
    if (l.flex != flex) continue;
    for (vtkIdType i = 0; i < l.points->GetNumberOfPoints(); ++i) {
      double p[3];
      l.points->GetPoint(i, p);
      out.emplace_back(p[0], p[1], p[2]);
    }
  }
  return out;
}

void View3D::updateElasticLines() {
  if (!model_) return;
  updateCaption();
  std::size_t offset = 0;
  for (std::size_t fi = 0; fi < model_->flexibleBodies.size(); ++fi) {
    const ModelFlexibleBody& f = model_->flexibleBodies[fi];
    const int n = f.modes();
    VecX q = VecX::Zero(n);
    if (animFlex_ == static_cast<int>(fi)) {
      q[animMode_] = animAmplitude_ * std::sin(animPhase_);
    } else if (animFlex_ < 0 && last_.modal.size() >= offset + static_cast<std::size_t>(n)) {
      for (int k = 0; k < n; ++k) q[k] = deformationScale_ * last_.modal[offset + static_cast<std::size_t>(k)];
    }
    offset += static_cast<std::size_t>(n);
    for (const ElasticLine& l : elasticLines_) {
      if (l.flex != static_cast<int>(fi)) continue;
      for (std::size_t i = 0; i < f.modal.nodes.size(); ++i) {
        const Vec3 p = f.modal.nodes[i] + f.modal.translation(static_cast<int>(i)) * q;
        l.points->SetPoint(static_cast<vtkIdType>(i), p.x(), p.y(), p.z());
      }
      l.points->Modified();
      l.poly->Modified();
    }
  }
}

void View3D::setModel(std::shared_ptr<const SuspensionModel> model) {
  model_ = std::move(model);
  if (animFlex_ >= 0) {  // the mode belonged to the model before
    animFlex_ = -1;
    animTimer_->stop();
    modeCaption_.clear();
  }
  vtkRenderer* r = vtk_->renderer();
  r->RemoveAllViewProps();
  captionActor_ = nullptr;
  if (model_ && !model_->flexibleBodies.empty()) {
    vtkNew<vtkTextActor> caption;
    caption->GetTextProperty()->SetFontSize(13);
    caption->GetTextProperty()->SetColor(0.1, 0.1, 0.2);
    caption->GetTextProperty()->SetVerticalJustificationToTop();
    caption->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    caption->SetPosition(0.01, 0.98);
    caption->PickableOff();
    r->AddViewProp(caption);
    captionActor_ = caption;
  }
  markProps_.clear();
  marks_.clear();
  bodyActors_.clear();
  ghostActors_.clear();
  p2pLines_.clear();
  helices_.clear();
  last_ = reference_ = Frame{};
  if (!model_) {  // nothing to show (a new project, tables with errors)
    vtk_->update();
    return;
  }
  bodyActors_.assign(model_->bodies.size(), {});
  // Each body's geometry in its own frame: once for the pose shown, once (light, translucent,
  // hidden unless asked for) for the design pose.
  auto geometry = [&](std::size_t b, bool ghost) {
    std::vector<vtkActor*> actors;
    const ModelBody& body = model_->bodies[b];
    if (body.modal) return actors;  // a flexible body's modal coordinates: drawn with its frame
    const QColor colour = ghost ? QColor(170, 175, 190)
                          : body.fixed ? QColor(120, 120, 120)
                                       : subsystemColour(model_->project().bodies[b].subsystem);
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
      vtkActor* a = addActor(r, f->GetOutputPort(), ghost ? colour : QColor(45, 45, 50));
      a->GetProperty()->SetOpacity(0.85);
      actors.push_back(a);
    }
    std::vector<Vec3> points;  // the free body's markers in its frame
    for (std::size_t m = 0; m < model_->markers.size(); ++m) {
      const ModelMarker& mk = model_->markers[m];
      if (mk.body.value != static_cast<int>(b)) continue;
      if (body.fixed) {
        vtkNew<vtkCubeSource> cube;
        cube->SetCenter(mk.s.x(), mk.s.y(), mk.s.z());
        cube->SetXLength(0.025);
        cube->SetYLength(0.025);
        cube->SetZLength(0.025);
        actors.push_back(addActor(r, cube->GetOutputPort(), colour));
        continue;
      }
      points.push_back(mk.s);
    }
    // A flexible body with nodes is drawn as its elastic line instead (below).
    const bool line = body.flexible >= 0 && model_->flexibleBodies[static_cast<std::size_t>(body.flexible)].modal.nodes.size() >= 2;
    if (!body.fixed && !line)
      for (vtkActor* a : hullActors(r, points, colour)) actors.push_back(a);
    if (ghost) {
      vtkNew<vtkMatrix4x4> m;
      for (vtkActor* a : actors) {
        a->GetProperty()->SetOpacity(0.25);
        a->SetUserMatrix(toVtk(Eigen::Translation3d(body.p0) * body.R0, m));
        a->SetVisibility(ghost_);
        a->PickableOff();
      }
    }
    return actors;
  };
  for (std::size_t b = 0; b < model_->bodies.size(); ++b) {
    bodyActors_[b] = geometry(b, false);
    if (!model_->bodies[b].fixed)
      for (vtkActor* a : geometry(b, true)) ghostActors_.push_back(a);
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
  // Flexible bodies: the elastic line through their nodes, in the frame's body coordinates,
  // moved by the modal coordinates (updated per frame).
  elasticLines_.clear();
  for (std::size_t fi = 0; fi < model_->flexibleBodies.size(); ++fi) {
    const ModelFlexibleBody& f = model_->flexibleBodies[fi];
    const auto count = static_cast<vtkIdType>(f.modal.nodes.size());
    if (count < 2) continue;
    vtkNew<vtkPoints> pts;
    pts->SetDataTypeToDouble();  // elasticLine() reads back what the modes moved, to round-off
    pts->SetNumberOfPoints(count);
    vtkNew<vtkPolyLine> polyLine;
    polyLine->GetPointIds()->SetNumberOfIds(count);
    for (vtkIdType k = 0; k < count; ++k) {
      polyLine->GetPointIds()->SetId(k, k);
      const Vec3& x = f.modal.nodes[static_cast<std::size_t>(k)];
      pts->SetPoint(k, x.x(), x.y(), x.z());
    }
    vtkNew<vtkCellArray> cells;
    cells->InsertNextCell(polyLine);
    vtkNew<vtkPolyData> poly;
    poly->SetPoints(pts);
    poly->SetLines(cells);
    vtkNew<vtkTubeFilter> tube;
    tube->SetInputData(poly);
    tube->SetRadius(0.009);
    tube->SetNumberOfSides(10);
    bodyActors_[static_cast<std::size_t>(f.body)].push_back(addActor(r, tube->GetOutputPort(), QColor(40, 90, 200)));
    elasticLines_.push_back({static_cast<int>(fi), pts, poly});
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
  last_ = reference_ = designFrame(*model_);
  applyPoses();
  setView(Preset::Iso);
}

void View3D::setMarks(const std::vector<Mark>& marks) {
  vtkRenderer* r = vtk_->renderer();
  for (vtkProp* p : markProps_) r->RemoveViewProp(p);
  markProps_.clear();
  marks_ = model_ ? marks : std::vector<Mark>{};
  for (const Mark& m : marks_) {
    vtkNew<vtkSphereSource> ball;
    ball->SetCenter(m.at.x(), m.at.y(), m.at.z());
    ball->SetRadius(0.018);
    ball->SetThetaResolution(16);
    ball->SetPhiResolution(12);
    const bool roll = m.label == tr("roll centre");
    vtkActor* a = addActor(r, ball->GetOutputPort(), roll ? QColor(220, 0, 120) : QColor(0, 150, 200));
    a->PickableOff();
    markProps_.push_back(a);
    vtkNew<vtkCaptionActor2D> caption;
    caption->SetCaption(m.label.toUtf8().constData());
    caption->SetAttachmentPoint(m.at.x(), m.at.y(), m.at.z());
    caption->BorderOff();
    caption->LeaderOn();
    caption->SetPosition(12, 12);
    caption->SetWidth(0.12);
    caption->SetHeight(0.03);
    caption->GetCaptionTextProperty()->SetColor(0.1, 0.1, 0.1);
    caption->GetCaptionTextProperty()->SetFontSize(12);
    caption->GetCaptionTextProperty()->BoldOff();
    caption->GetCaptionTextProperty()->ShadowOff();
    caption->GetCaptionTextProperty()->ItalicOff();
    r->AddViewProp(caption);
    markProps_.push_back(caption);
  }
  vtk_->update();
}

void View3D::showFrame(const Frame& frame) {
  last_ = frame;
  if (animFlex_ >= 0) {
    animFlex_ = -1;
    animTimer_->stop();
    modeCaption_.clear();
  }
  applyPoses();
}

void View3D::setReference(const Frame& frame) {
  reference_ = frame;
  applyPoses();
}

void View3D::setGhost(bool on) {
  ghost_ = on;
  for (vtkActor* a : ghostActors_) a->SetVisibility(on);
  vtk_->update();
}

void View3D::setExaggeration(double factor) {
  exaggeration_ = factor;
  applyPoses();
}

void View3D::applyPoses() {
  if (!model_ || last_.position.size() != model_->bodies.size()) return;
  if (reference_.position.size() != model_->bodies.size()) reference_ = designFrame(*model_);
  const double k = exaggeration_;
  std::vector<Eigen::Affine3d> pose(model_->bodies.size());
  for (std::size_t b = 0; b < model_->bodies.size(); ++b) {
    // Exaggerate the motion from the reference pose (p0, R0): p0 + k (p - p0), R0 exp(k log(R0^T R)).
    const Vec3& p0 = reference_.position[b];
    const Mat3& R0 = reference_.orientation[b];
    const Eigen::AngleAxisd rel(R0.transpose() * last_.orientation[b]);
    const Mat3 R = R0 * Eigen::AngleAxisd(k * rel.angle(), rel.axis()).toRotationMatrix();
    pose[b] = Eigen::Translation3d(p0 + k * (last_.position[b] - p0)) * R;
    vtkNew<vtkMatrix4x4> m;
    toVtk(pose[b], m);
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
  updateElasticLines();
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
  fitAll();
}

namespace {

/// Camera frame (right, up, towards the camera) and the half-angles of the view [rad].
struct ViewGeometry {
  Vec3 right, up, back, focal;
  double tanHalfV, tanHalfH;
};

ViewGeometry viewGeometry(vtkRenderer* r) {
  vtkCamera* c = r->GetActiveCamera();
  double pos[3], focal[3], up[3];
  c->GetPosition(pos);
  c->GetFocalPoint(focal);
  c->GetViewUp(up);
  ViewGeometry g;
  g.focal = Vec3(focal[0], focal[1], focal[2]);
  g.back = (Vec3(pos[0], pos[1], pos[2]) - g.focal).normalized();
  g.right = Vec3(up[0], up[1], up[2]).cross(g.back).normalized();
  g.up = g.back.cross(g.right);
  int w = 1, h = 1;
  r->GetTiledSize(&w, &h);
  g.tanHalfV = std::tan(0.5 * c->GetViewAngle() * M_PI / 180.0);
  g.tanHalfH = g.tanHalfV * std::max(1, w) / std::max(1, h);
  return g;
}

std::vector<Vec3> boundCorners(vtkRenderer* r) {
  double b[6];
  r->ComputeVisiblePropBounds(b);
  if (!(b[0] <= b[1])) return {};
  std::vector<Vec3> corners;
  for (int i = 0; i < 8; ++i) corners.emplace_back(b[i & 1], b[2 + ((i >> 1) & 1)], b[4 + ((i >> 2) & 1)]);
  return corners;
}

}  // namespace

void View3D::fitAll() {
  vtkRenderer* r = vtk_->renderer();
  const std::vector<Vec3> corners = boundCorners(r);
  if (corners.empty()) return;
  ViewGeometry g = viewGeometry(r);
  Vec3 centre = Vec3::Zero();
  for (const Vec3& c : corners) centre += c / 8.0;
  // The distance from the centre along the view direction at which every corner is inside both
  // half-angles, with 8 % margin.
  double distance = 0.0;
  constexpr double kMargin = 1.08;
  for (const Vec3& c : corners) {
    const Vec3 v = c - centre;
    const double towards = v.dot(g.back);
    distance = std::max({distance, towards + kMargin * std::abs(v.dot(g.right)) / g.tanHalfH,
                         towards + kMargin * std::abs(v.dot(g.up)) / g.tanHalfV});
  }
  vtkCamera* c = r->GetActiveCamera();
  const Vec3 pos = centre + distance * g.back;
  c->SetFocalPoint(centre.x(), centre.y(), centre.z());
  c->SetPosition(pos.x(), pos.y(), pos.z());
  // Parallel projection: the half height of the view that holds every corner, with the margin.
  double halfHeight = 0.0;
  for (const Vec3& corner : corners) {
    const Vec3 v = corner - centre;
    halfHeight = std::max({halfHeight, kMargin * std::abs(v.dot(g.up)),
                           kMargin * std::abs(v.dot(g.right)) * g.tanHalfV / g.tanHalfH});
  }
  c->SetParallelScale(std::max(halfHeight, 1e-3));
  r->ResetCameraClippingRange();
  vtk_->update();
}

void View3D::setOrthographic(bool on) {
  vtk_->renderer()->GetActiveCamera()->SetParallelProjection(on);
  fitAll();
}

bool View3D::orthographic() const { return vtk_->renderer()->GetActiveCamera()->GetParallelProjection() != 0; }

bool View3D::everythingInView() const {
  vtkRenderer* r = vtk_->renderer();
  const std::vector<Vec3> corners = boundCorners(r);
  if (corners.empty()) return true;
  const ViewGeometry g = viewGeometry(r);
  double pos[3];
  r->GetActiveCamera()->GetPosition(pos);
  const Vec3 eye(pos[0], pos[1], pos[2]);
  for (const Vec3& c : corners) {
    const Vec3 v = c - eye;
    const double depth = -v.dot(g.back);
    if (depth <= 0 || std::abs(v.dot(g.right)) > depth * g.tanHalfH * (1 + 1e-9) ||
        std::abs(v.dot(g.up)) > depth * g.tanHalfV * (1 + 1e-9))
      return false;
  }
  return true;
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

QImage View3D::grab3D() {
  // The framebuffer holds premultiplied colours and an alpha that translucent actors leave below
  // 1. The screen shows the colours as they are (the widget is opaque), so the image takes them
  // and drops the alpha: un-premultiplying instead would turn a dark translucent tyre white.
  QImage image = vtk_->grabFramebuffer().convertToFormat(QImage::Format_ARGB32_Premultiplied);
  image.reinterpretAsFormat(QImage::Format_RGB32);
  for (int y = 0; y < image.height(); ++y) {
    auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
    for (int x = 0; x < image.width(); ++x) line[x] |= 0xff000000u;
  }
  return image;
}

}  // namespace ek::ui
