// Method::Auto (field.hpp): picks direct or tree per evaluation by resolve_method(). Each
// evaluator is made on first use and kept with its caches: the CUDA sources, the source tree.
#include "field/field_internal.hpp"
#include "field/tree/tree_internal.hpp"

namespace simscope::field::tree {

namespace {

class AutoEvaluator final : public Evaluator {
 public:
  using Evaluator::evaluate;
  explicit AutoEvaluator(Backend b) : backend_(b) {}
  Backend backend() const override { return backend_; }
  Method method() const override { return Method::Auto; }
  void release_cache() override {
    if (tree_) tree_->release_cache();
  }
  void complete_cache(Progress* progress) override {
    if (tree_) tree_->complete_cache(progress);
  }

  void evaluate(const Sources& s, const Targets& t, const IndexRange& range, const Options& o,
                Result& out, Progress* progress) override {
    const Method m = resolve_method(Method::Auto, backend_, s.size(), t.size());
    auto& slot = m == Method::Tree ? tree_ : direct_;
    if (!slot) slot = make_evaluator(m, backend_);
    last_ = slot.get();
    slot->evaluate(s, t, range, o, out, progress);
  }
  bool measure_deferred(Result& out, Progress* progress) override {
    return last_ ? last_->measure_deferred(out, progress) : false;
  }
  std::shared_ptr<const float> device_output(const std::string& name) const override {
    return last_ ? last_->device_output(name) : nullptr;
  }
  double peak_device_bytes() const override {
    return std::max(direct_ ? direct_->peak_device_bytes() : 0.0,
                    tree_ ? tree_->peak_device_bytes() : 0.0);
  }

 private:
  Backend backend_;
  std::unique_ptr<Evaluator> direct_, tree_;
  Evaluator* last_ = nullptr;
};

}  // namespace

std::unique_ptr<Evaluator> make_auto_evaluator(Backend backend) {
  return std::make_unique<AutoEvaluator>(backend);
}

}  // namespace simscope::field::tree
