// Stateless cleanup entry: deployed with the tombstone config so the
// WorkshopReservations namespace can be deleted while the Worker still exists.
export default {
  fetch() {
    return Response.json({ status: "cleanup" }, { status: 410 });
  },
};
