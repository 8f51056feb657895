'use strict';
// Today, past, future, last/next X days on closeDate (a date field) by the days of Pacific/Pago_Pago (see ../lib/date-field-days.js)
module.exports = require('../lib/date-field-days').dateFieldDaysCheck(
	'Pacific/Pago_Pago',
	'PagoPago',
);
